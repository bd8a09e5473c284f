/**
 * The read markers a long-poll moves before it waits (`setReadMarker=1`, docs/reference/chat.md#receiving:
 * when `lastKnownMessageId` is past the attendee's `last_read_message`, the marker moves to it).
 * A room's members poll again together after each wake-up, so hundreds of these arrive in one
 * turn of the event loop, all moving to the same message: they are gathered per turn and written
 * as one transaction (marker and read counter, and one notification cleanup) per room and
 * message instead of one per poll (docs/benchmarks.md "Chat long-poll scale").
 *
 * Same semantics as one write per poll: each poll resumes only after the transaction holding its
 * marker has committed and the read has been announced, so it still reads (and answers
 * X-Chat-Last-Common-Read) after its own marker moved.
 */
import type { Db } from '../../db/database.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { Repositories } from '../../db/repositories/index.js';
import { nowSeconds } from '../../domain/time.js';
import type { ChatService } from './chat.js';

interface Batch {
  room: RoomRow;
  messageId: number;
  attendeeIds: number[];
  /** The users whose mention notifications up to the message are read with it. */
  userIds: string[];
  done: Promise<void>;
}

export class ReceiveReadMarkers {
  /** Batches of this turn by `room id:message id`. */
  private readonly open = new Map<string, Batch>();

  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chat: ChatService,
  ) {}

  /**
   * Moves a user attendee's marker to `messageId` with the others of this turn; with
   * `markNotifications`, their mention notifications up to it are read too.
   */
  move(room: RoomRow, attendeeId: number, userId: string, messageId: number, markNotifications = true): Promise<void> {
    const key = `${room.id}:${messageId}`;
    let batch = this.open.get(key);
    if (!batch) {
      const b: Batch = { room, messageId, attendeeIds: [], userIds: [], done: Promise.resolve() };
      b.done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.open.delete(key);
        return this.write(b);
      });
      this.open.set(key, b);
      batch = b;
    }
    batch.attendeeIds.push(attendeeId);
    if (markNotifications) batch.userIds.push(userId);
    return batch.done;
  }

  private async write(b: Batch): Promise<void> {
    // Marker and read counter together, as AttendeesRepository.setReadMarker requires.
    await this.db.kysely.transaction().execute((trx) => this.repos.withTransaction(trx).attendees.setReadMarkers(b.attendeeIds, b.messageId, nowSeconds()));
    if (b.userIds.length) await this.chat.announceRead(b.room, b.userIds, b.messageId);
  }
}
