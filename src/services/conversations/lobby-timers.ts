/**
 * Lifting lobbies whose timer has passed (docs/reference/conversations.md#timers-and-jobs): lazily by whoever reads the
 * conversation first, and by the lobby-timer job for the ones nobody reads. The lift and its
 * `lobby_timer_reached` system message (docs/reference/chat.md#system-messages, actor guests/system) are one
 * transaction; the UPDATE only takes rows still carrying an expired timer, so concurrent readers
 * in any process lift (and record) each lobby once.
 */
import type { Db } from '../../db/database.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { EventBus } from '../../events/bus.js';

export class LobbyTimers {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly events: EventBus,
  ) {}

  /** Lifts the expired lobbies among `ids` (or all); returns the rooms lifted, as they are now. */
  async lift(ids: number[] | 'all', now: number): Promise<RoomRow[]> {
    if (ids !== 'all' && ids.length === 0) return [];
    return this.db.kysely.transaction().execute(async (trx) => {
      const { rooms } = this.repos.withTransaction(trx);
      const lifted = await rooms.liftExpiredLobbies(ids, now);
      if (lifted.length === 0) return [];
      await this.events.emit('rooms.lobby-timer-reached.trx', { trx, rooms: lifted, now });
      // Their last message is now the system message just written.
      return rooms.findByIds(lifted.map((r) => r.id));
    });
  }
}
