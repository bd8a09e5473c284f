/**
 * SQL for reactions (docs/reference/chat.md#reactions): rows of `chat_messages` with type `reaction`
 * (`reaction_deleted` once removed), parent = the reacted message. The reacted message's
 * `reactions` column holds the emoji → count map, recomputed from these rows under the room's
 * row lock, so reads of messages need no join.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { NewChatMessage } from './chat-messages.js';
import { chunks } from '../chunks.js';

export const REACTION = 'reaction';
export const REACTION_DELETED = 'reaction_deleted';

export interface ReactionRead {
  id: number;
  actor_type: string;
  actor_id: string;
  actor_display_name: string;
  user_display_name: string | null;
  message: string;
  created_at: number;
}

export class ChatReactionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts a reaction row unless the actor already reacted so (unique index): the new id, or 0. */
  async insertOnce(row: NewChatMessage): Promise<number> {
    const r = await this.db
      .insertInto('chat_messages')
      .values(row)
      .onConflict((oc) => oc.doNothing()) // the partial unique index (migration 0703) is the only one that can conflict
      .returning('id')
      .executeTakeFirst();
    return r ? Number(r.id) : 0;
  }

  async findOne(parentId: number, actorType: string, actorId: string, emoji: string): Promise<number> {
    const r = await this.db
      .selectFrom('chat_messages')
      .select('id')
      .where('parent_id', '=', parentId)
      .where('actor_type', '=', actorType)
      .where('actor_id', '=', actorId)
      .where('message', '=', emoji)
      .where('message_type', '=', REACTION)
      .executeTakeFirst();
    return r ? Number(r.id) : 0;
  }

  /** Removal keeps the row as `reaction_deleted` (Talk converts the comment). */
  async markDeleted(id: number): Promise<void> {
    await this.db.updateTable('chat_messages').set({ message_type: REACTION_DELETED, message: '' }).where('id', '=', id).execute();
  }

  /** Recomputes the reacted message's emoji → count map from its reaction rows; returns it. */
  async refreshCounts(parentId: number): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('chat_messages')
      .select(['message', (eb) => eb.fn.countAll<number>().as('n')])
      .where('parent_id', '=', parentId)
      .where('message_type', '=', REACTION)
      .groupBy('message')
      .orderBy('message')
      .execute();
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.message] = Number(r.n);
    await this.db
      .updateTable('chat_messages')
      .set({ reactions: JSON.stringify(counts) })
      .where('id', '=', parentId)
      .execute();
    return counts;
  }

  /** The reactions of a message (optionally one emoji), oldest first, with users' current names. */
  list(parentId: number, emoji?: string): Promise<ReactionRead[]> {
    let q = this.db
      .selectFrom('chat_messages as m')
      .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'm.actor_id').on('m.actor_type', '=', 'users'))
      .select(['m.id', 'm.actor_type', 'm.actor_id', 'm.actor_display_name', 'u.display_name as user_display_name', 'm.message', 'm.created_at'])
      .where('m.parent_id', '=', parentId)
      .where('m.message_type', '=', REACTION);
    if (emoji !== undefined) q = q.where('m.message', '=', emoji);
    return q.orderBy('m.id', 'asc').execute();
  }

  /** The viewer's own reactions on the given messages (message id -> emoji), one statement per chunk. */
  async ownOn(parentIds: number[], actorType: string, actorId: string): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    for (const part of chunks([...new Set(parentIds)])) {
      const rows = await this.db
        .selectFrom('chat_messages')
        .select(['parent_id', 'message'])
        .where('parent_id', 'in', part)
        .where('actor_type', '=', actorType)
        .where('actor_id', '=', actorId)
        .where('message_type', '=', REACTION)
        .orderBy('id')
        .execute();
      for (const r of rows) {
        const id = Number(r.parent_id);
        out.set(id, [...(out.get(id) ?? []), r.message]);
      }
    }
    return out;
  }
}
