/**
 * Lobby timers (docs/reference/conversations.md#timers-and-jobs): reading a conversation lifts a passed timer lazily; this
 * job lifts the ones nobody reads, so the state is right for every process and every client.
 */
import type { JobDef } from './runner.js';

export const lobbyTimerJob: JobDef = {
  name: 'lobby-timer',
  intervalSeconds: 60,
  description: 'lift lobbies whose timer has passed',
  async run(services, now) {
    return `${await services.housekeeping.liftExpiredLobbies(now)} lobbies lifted`;
  },
};
