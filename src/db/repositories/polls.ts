/**
 * SQL for polls and their votes (docs/reference/chat.md#polls). Counts live on the poll row,
 * recomputed from the vote rows while the voting transaction holds the poll's row lock.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, PollsTable } from '../schema.js';
import { chunks } from '../chunks.js';
import { PollStatus } from '../../domain/polls.js';

export type PollRow = Selectable<PollsTable>;
export interface PollVoteRow {
  actor_type: string;
  actor_id: string;
  actor_display_name: string;
  option_id: number;
}

export class PollsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<PollsTable>): Promise<number> {
    const r = await this.db.insertInto('polls').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }

  findInRoom(roomId: number, id: number): Promise<PollRow | undefined> {
    return this.db.selectFrom('polls').selectAll().where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst();
  }

  /** A conversation's poll drafts (status 2), oldest first. */
  draftsInRoom(roomId: number): Promise<PollRow[]> {
    return this.db.selectFrom('polls').selectAll().where('room_id', '=', roomId).where('status', '=', PollStatus.DRAFT).orderBy('id').execute();
  }

  /** Edits a draft (one conditional statement); false when it is no draft (any more). */
  async updateDraft(id: number, patch: Pick<Updateable<PollsTable>, 'question' | 'options' | 'result_mode' | 'max_votes'>): Promise<boolean> {
    const r = await this.db.updateTable('polls').set(patch).where('id', '=', id).where('status', '=', PollStatus.DRAFT).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Deletes a draft of the room (it has no votes); false when it is no draft (any more). */
  async deleteDraft(roomId: number, id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('polls').where('room_id', '=', roomId).where('id', '=', id).where('status', '=', PollStatus.DRAFT).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Locks an open poll for the transaction (a no-op update); false when it is not open any more. */
  async lockOpen(id: number): Promise<boolean> {
    const r = await this.db.updateTable('polls').set({ status: PollStatus.OPEN }).where('id', '=', id).where('status', '=', PollStatus.OPEN).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Closes an open poll (one conditional statement); false when it was already closed. */
  async close(id: number): Promise<boolean> {
    const r = await this.db
      .updateTable('polls')
      .set({ status: PollStatus.CLOSED })
      .where('id', '=', id)
      .where('status', '=', PollStatus.OPEN)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Replaces an actor's votes (empty = withdraw) and recomputes the poll's counts. */
  async replaceVotes(pollId: number, actor: { type: string; id: string; displayName: string }, optionIds: number[]): Promise<void> {
    await this.db.deleteFrom('poll_votes').where('poll_id', '=', pollId).where('actor_type', '=', actor.type).where('actor_id', '=', actor.id).execute();
    if (optionIds.length) {
      await this.db
        .insertInto('poll_votes')
        .values(optionIds.map((o) => ({ poll_id: pollId, actor_type: actor.type, actor_id: actor.id, actor_display_name: actor.displayName, option_id: o })))
        .execute();
    }
    const rows = await this.db
      .selectFrom('poll_votes')
      .select(['option_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('poll_id', '=', pollId)
      .groupBy('option_id')
      .orderBy('option_id')
      .execute();
    const votes: Record<string, number> = {};
    for (const r of rows) votes[`option-${r.option_id}`] = Number(r.n);
    const voters = await this.db.selectFrom('poll_votes').select(['actor_type', 'actor_id']).distinct().where('poll_id', '=', pollId).execute();
    await this.db
      .updateTable('polls')
      .set({ votes: JSON.stringify(votes), num_voters: voters.length })
      .where('id', '=', pollId)
      .execute();
  }

  /** One actor's option ids on a poll. */
  async votedBy(pollId: number, actorType: string, actorId: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('poll_votes')
      .select('option_id')
      .where('poll_id', '=', pollId)
      .where('actor_type', '=', actorType)
      .where('actor_id', '=', actorId)
      .orderBy('option_id')
      .execute();
    return rows.map((r) => Number(r.option_id));
  }

  /** Every vote of a poll (details of a closed public poll), with users' current names. */
  details(pollId: number): Promise<PollVoteRow[]> {
    return this.db
      .selectFrom('poll_votes as v')
      .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'v.actor_id').on('v.actor_type', '=', 'users'))
      .select(['v.actor_type', 'v.actor_id', (eb) => eb.fn.coalesce('u.display_name', 'v.actor_display_name').as('actor_display_name'), 'v.option_id'])
      .where('v.poll_id', '=', pollId)
      .orderBy('v.id')
      .execute() as Promise<PollVoteRow[]>;
  }

  /**
   * A poll of the room and its votes (its message was deleted). The poll row goes first: a vote
   * holds it locked (lockOpen) until it commits, so its votes are there to delete next, and a
   * vote after it finds no poll.
   */
  async deleteInRoom(roomId: number, id: number): Promise<void> {
    const gone = await this.db.deleteFrom('polls').where('room_id', '=', roomId).where('id', '=', id).returning('id').execute();
    await this.deleteVotes(gone.map((p) => Number(p.id)));
  }

  /** The rooms' polls, then their votes (as deleteInRoom). */
  async deleteForRooms(roomIds: number[]): Promise<void> {
    for (const part of chunks([...new Set(roomIds)])) {
      const gone = await this.db.deleteFrom('polls').where('room_id', 'in', part).returning('id').execute();
      await this.deleteVotes(gone.map((p) => Number(p.id)));
    }
  }

  private async deleteVotes(pollIds: number[]): Promise<void> {
    for (const part of chunks(pollIds)) await this.db.deleteFrom('poll_votes').where('poll_id', 'in', part).execute();
  }
}
