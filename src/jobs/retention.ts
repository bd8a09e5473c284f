/**
 * Retention (docs/reference/conversations.md#timers-and-jobs, Talk's ExpireObjectRooms, hourly): phone, event and
 * instant-meeting conversations idle for retention_phone_rooms / retention_event_rooms /
 * retention_instant_meetings days, classified ones for retention_classified_rooms seconds.
 */
import type { JobDef } from './runner.js';

export const retentionJob: JobDef = {
  name: 'retention',
  intervalSeconds: 3600,
  description: 'delete phone, event, instant-meeting and classified conversations past their retention',
  async run(services, now) {
    const deleted = await services.housekeeping.expireObjectRooms(now);
    return (
      Object.entries(deleted)
        .map(([type, n]) => `${n} ${type}`)
        .join(', ') || 'retention disabled'
    );
  },
};
