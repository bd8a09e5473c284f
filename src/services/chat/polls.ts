/**
 * Polls (docs/reference/chat.md#polls): create (posts the poll as an `object_shared` chat message),
 * show, vote (replaces the voter's votes; empty withdraws; `poll_voted` for public polls) and
 * close (`poll_closed`). Rendering per viewer follows Talk's PollController::renderPoll.
 *
 * Drafts (capabilities `talk-polls-drafts`, `edit-draft-poll`; status 2): moderators keep polls
 * to post later. A draft posts nothing into the chat; moderators list, read, edit (its author
 * too) and delete them; for anyone else a draft does not exist (404 `poll`), and nobody votes on
 * one. Answers in Talk's draft shape (Poll::renderAsDraft).
 */
import { may } from '../../domain/abilities.js';
import type { Db } from '../../db/database.js';
import type { PollsRepository, PollRow, PollVoteRow } from '../../db/repositories/polls.js';
import { SYSTEM_ACTOR } from '../../domain/chat.js';
import { ActorType, RoomType } from '../../domain/constants.js';
import { badRequest, forbidden, notFound } from '../../domain/errors.js';
import { PollMode, PollStatus } from '../../domain/polls.js';
import { nowSeconds } from '../../domain/time.js';
import type { ChatAccess, ChatApiService } from './chat-api.js';
import { proxiedPoll, type ProxiedAnswer } from './chat-proxied.js';
import type { ChatService } from './chat.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomsService } from '../conversations/rooms.js';

const QUESTION_MAX_BYTES = 32000;
const OPTIONS_MAX_BYTES = 60000;

export interface PollInput {
  question: string;
  options: unknown[];
  resultMode: number;
  maxVotes: number;
  draft: boolean;
}

/** What a poll or draft is made of, as sent to the host of a proxied conversation. */
const pollFields = (input: Omit<PollInput, 'draft'>) => ({
  question: input.question,
  options: input.options,
  resultMode: input.resultMode,
  maxVotes: input.maxVotes,
});

/** A poll as a viewer sees it (a plain object for the OCS layer). */
export type PollRecord = Record<string, unknown>;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** The rich object of a poll in chat messages (docs/reference/chat.md#system-messages poll_voted / poll_closed, docs/reference/chat.md#polls object_shared). */
const pollObject = (p: { id: number; question: string }) => ({ type: 'talk-poll', id: String(p.id), name: p.question });

export class PollsService {
  private readonly polls: PollsRepository;

  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly chat: ChatService,
    private readonly rooms: RoomsService,
  ) {
    this.polls = repos.polls;
  }

  /** POST /poll/{token}: 201 with the poll; a draft (moderators) 200 with the draft and no message. */
  async create(ctx: RequestContext, token: unknown, input: PollInput): Promise<PollRecord | ProxiedAnswer> {
    const acc = await this.pollRoom(ctx, token);
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedPoll(proxy, ctx, acc.room, 'POST', '', { ...pollFields(input), draft: input.draft });
    if (input.draft && !may.draftPolls(acc.attendee)) throw badRequest('draft', 'Only moderators can save poll drafts');
    const { question, options } = validated(input);
    const now = nowSeconds();
    const row = {
      room_id: acc.room.id,
      question,
      options: JSON.stringify(options),
      actor_type: acc.actor.type,
      actor_id: acc.actor.id,
      actor_display_name: acc.actor.displayName,
      status: input.draft ? PollStatus.DRAFT : PollStatus.OPEN,
      result_mode: input.resultMode,
      max_votes: input.maxVotes,
      votes: '{}',
      num_voters: 0,
      created_at: now,
    };
    // The answer is the row as written, not read again: a history cleared meanwhile (which
    // removes polls) must not turn a created poll into 404 (Talk answers what it created).
    if (input.draft) {
      // Under the conversation's row lock: one deleted since the lookup gets no draft (404 `room`).
      const id = await this.rooms.lockedTransaction(acc.room.id, (tx) => tx.polls.insert(row));
      return asDraft({ ...row, id });
    }
    const posted = await this.db.kysely.transaction().execute(async (trx) => {
      const pollId = await this.repos.withTransaction(trx).polls.insert(row);
      // Like any shared object, it moves the author's read marker (docs/reference/chat.md#shared-objects).
      const messageId = await this.chat.postSharedObject(trx, acc.room, acc.actor, pollObject({ id: pollId, question }), { authorAttendeeId: acc.attendee.id });
      return { pollId, messageId };
    });
    // Notified as any shared object is, once committed.
    await this.chat.objectShared(acc.room, posted.messageId, acc.actor);
    return this.show(acc, { ...row, id: posted.pollId });
  }

  /** GET /poll/{token}/drafts: the conversation's drafts, oldest first (moderators; 403 otherwise). */
  async drafts(ctx: RequestContext, token: unknown): Promise<PollRecord[] | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { lobby: false });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedPoll(proxy, ctx, acc.room, 'GET', '/drafts');
    if (!may.draftPolls(acc.attendee)) throw forbidden('moderator', 'Only moderators can see poll drafts');
    return (await this.polls.draftsInRoom(acc.room.id)).map(asDraft);
  }

  /**
   * POST /poll/{token}/draft/{pollId}: edits a draft (moderators and its author). 404 `poll`
   * unknown, 400 `poll` not a draft, 400 `draft` neither moderator nor author, then the checks
   * of a new poll.
   */
  async editDraft(ctx: RequestContext, token: unknown, pollId: number, input: Omit<PollInput, 'draft'>): Promise<PollRecord | ProxiedAnswer> {
    const acc = await this.pollRoom(ctx, token);
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedPoll(proxy, ctx, acc.room, 'POST', `/draft/${pollId}`, pollFields(input));
    const poll = await this.require(acc, pollId);
    if (poll.status !== PollStatus.DRAFT) throw badRequest('poll', 'The poll is not a draft');
    if (!may.managePoll(acc.attendee, this.isAuthor(acc, poll))) throw badRequest('draft', 'Only moderators and its author can edit a draft');
    const { question, options } = validated(input);
    // Only while it is still a draft (one conditional statement).
    const edited = await this.polls.updateDraft(poll.id, {
      question,
      options: JSON.stringify(options),
      result_mode: input.resultMode,
      max_votes: input.maxVotes,
    });
    if (!edited) throw notFound('poll', 'The poll does not exist');
    return asDraft(await this.require(acc, poll.id));
  }

  /** GET /poll/{token}/{pollId}. */
  async get(ctx: RequestContext, token: unknown, pollId: number): Promise<PollRecord | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedPoll(proxy, ctx, acc.room, 'GET', `/${pollId}`);
    const poll = await this.require(acc, pollId);
    // A draft exists for moderators only.
    if (poll.status === PollStatus.DRAFT && !may.draftPolls(acc.attendee)) throw notFound('poll', 'The poll does not exist');
    return this.show(acc, poll);
  }

  /** POST /poll/{token}/{pollId}: 400 `poll` when closed, 400 `options` for invalid choices. */
  async vote(ctx: RequestContext, token: unknown, pollId: number, optionIds: unknown[]): Promise<PollRecord | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedPoll(proxy, ctx, acc.room, 'POST', `/${pollId}`, { optionIds });
    const poll = await this.require(acc, pollId);
    // Nobody votes on a draft, moderators included.
    if (poll.status === PollStatus.DRAFT) throw notFound('poll', 'The poll does not exist');
    if (poll.status !== PollStatus.OPEN) throw badRequest('poll', 'The poll is closed');
    const count = (JSON.parse(poll.options) as unknown[]).length;
    const ids = optionIds.map((o) => (typeof o === 'number' ? o : typeof o === 'string' && /^\d+$/.test(o) ? Number(o) : NaN));
    if (
      ids.some((o) => !Number.isInteger(o) || o < 0 || o >= count) ||
      new Set(ids).size !== ids.length ||
      (poll.max_votes > 0 && ids.length > poll.max_votes)
    ) {
      throw badRequest('options', 'Invalid options');
    }
    const voted = await this.db.kysely.transaction().execute(async (trx) => {
      const repo = this.repos.withTransaction(trx).polls;
      // The poll's row lock: votes and a concurrent close serialise here.
      if (!(await repo.lockOpen(poll.id))) return false;
      await repo.replaceVotes(poll.id, acc.actor, ids);
      // Public polls announce a vote anonymously (docs/reference/chat.md#system-messages poll_voted: actor guests/system).
      if (poll.result_mode === PollMode.PUBLIC && ids.length > 0) {
        await this.chat.postSystemMessage(trx, acc.room, { ...SYSTEM_ACTOR }, 'poll_voted', { poll: pollObject(poll) });
      }
      return true;
    });
    if (!voted) throw badRequest('poll', 'The poll is closed');
    return this.show(acc, await this.require(acc, poll.id));
  }

  /**
   * DELETE /poll/{token}/{pollId}: author or moderator; 400 when already closed. A draft is
   * deleted instead (logged-in moderators; `null` answers 202; anyone else 404 `poll`).
   */
  async close(ctx: RequestContext, token: unknown, pollId: number): Promise<PollRecord | null | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedPoll(proxy, ctx, acc.room, 'DELETE', `/${pollId}`);
    const poll = await this.require(acc, pollId);
    if (poll.status === PollStatus.DRAFT) {
      if (!may.deletePoll(acc.attendee, false) || !(await this.polls.deleteDraft(acc.room.id, poll.id))) throw notFound('poll', 'The poll does not exist');
      return null;
    }
    if (!may.managePoll(acc.attendee, this.isAuthor(acc, poll))) throw forbidden('poll', 'Only the author or a moderator can close the poll');
    const closed = await this.db.kysely.transaction().execute(async (trx) => {
      if (!(await this.repos.withTransaction(trx).polls.close(poll.id))) return false;
      await this.chat.postSystemMessage(trx, acc.room, acc.actor, 'poll_closed', { poll: pollObject(poll) });
      return true;
    });
    if (!closed) throw badRequest('poll', 'The poll is already closed');
    return this.show(acc, await this.require(acc, poll.id));
  }

  /** Forget the polls of deleted conversations. */
  forgetRooms(roomIds: number[]): Promise<void> {
    return this.polls.deleteForRooms(roomIds);
  }

  /** The caller's group or public conversation for writing a poll (participant, lobby, chat permission, not read-only; 400 `room`). */
  private async pollRoom(ctx: RequestContext, token: unknown): Promise<ChatAccess> {
    const acc = await this.chatApi.access(ctx, token, { write: true, chat: true });
    if (acc.room.type !== RoomType.GROUP && acc.room.type !== RoomType.PUBLIC)
      throw badRequest('room', 'Polls are only possible in group and public conversations');
    return acc;
  }

  private async require(acc: ChatAccess, pollId: number): Promise<PollRow> {
    const poll = pollId > 0 ? await this.polls.findInRoom(acc.room.id, pollId) : undefined;
    if (!poll) throw notFound('poll', 'The poll does not exist');
    return poll;
  }

  private isAuthor(acc: ChatAccess, poll: PollRow): boolean {
    return poll.actor_type === acc.actor.type && poll.actor_id === acc.actor.id;
  }

  /** Talk's renderPoll (docs/reference/chat.md#polls "Poll object"). */
  private async show(acc: ChatAccess, poll: PollRow): Promise<PollRecord> {
    const votedSelf = await this.polls.votedBy(poll.id, acc.actor.type, acc.actor.id);
    const counts = JSON.parse(poll.votes) as Record<string, number>;
    // The draft's fields and the results, as Talk's Poll::renderAsPoll builds on renderAsDraft.
    const out: PollRecord = {
      ...asDraft(poll),
      // PHP's empty array is JSON [].
      votes: Object.keys(counts).length ? counts : [],
      numVoters: poll.num_voters,
      votedSelf,
    };
    const canSeeSummary = votedSelf.length > 0 && poll.result_mode === PollMode.PUBLIC;
    if (!canSeeSummary && poll.status === PollStatus.OPEN) {
      out.votes = [];
      // Moderators and the author see the number of voters, to know when to close.
      if (!may.managePoll(acc.attendee, this.isAuthor(acc, poll))) out.numVoters = 0;
    } else if (poll.result_mode === PollMode.PUBLIC && poll.status === PollStatus.CLOSED) {
      out.details = (await this.polls.details(poll.id)).map(detail);
    }
    return out;
  }
}

/** A poll's question and options as Talk's Poll setters check them (docs/reference/chat.md#polls "Validation"). */
function validated(input: { question: string; options: unknown[] }): { question: string; options: string[] } {
  const question = input.question.trim();
  if (question === '' || bytes(question) > QUESTION_MAX_BYTES) throw badRequest('question', 'The question is empty or too long');
  if (!input.options.every((o) => typeof o === 'string')) throw badRequest('options', 'Options must be strings');
  const options = input.options as string[];
  if (options.filter((o) => o.trim() !== '').length < 2) throw badRequest('options', 'At least two options are needed');
  if (bytes(JSON.stringify(options)) > OPTIONS_MAX_BYTES) throw badRequest('options', 'The options are too long');
  return { question, options };
}

/** Talk's Poll::renderAsDraft: the poll without results. */
function asDraft(poll: PollRow): PollRecord {
  return {
    id: poll.id,
    question: poll.question,
    options: JSON.parse(poll.options),
    actorType: poll.actor_type,
    actorId: poll.actor_id,
    actorDisplayName: poll.actor_display_name,
    status: poll.status,
    resultMode: poll.result_mode,
    maxVotes: poll.max_votes,
  };
}

function detail(v: PollVoteRow) {
  const name = v.actor_type === ActorType.USERS ? v.actor_display_name || v.actor_id : v.actor_display_name;
  return { actorType: v.actor_type, actorId: v.actor_id, actorDisplayName: name, optionId: Number(v.option_id) };
}
