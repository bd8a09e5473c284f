/**
 * Empty conversations (docs/reference/conversations.md#timers-and-jobs, Talk's RemoveEmptyRooms, every 5 minutes): rooms
 * with no attendee besides groups and teams are deleted (not the changelog, not file rooms).
 */
import type { JobDef } from './runner.js';

export const emptyRoomsJob: JobDef = {
  name: 'empty-rooms',
  intervalSeconds: 300,
  description: 'delete conversations nobody is in any more',
  async run(services) {
    return `${await services.housekeeping.removeEmptyRooms()} deleted`;
  },
};
