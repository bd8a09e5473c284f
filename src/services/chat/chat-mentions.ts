/**
 * Mentions (docs/reference/chat.md#mentions, docs/reference/chat.md#other-operations "Mentions"): resolving the
 * mentions of a message into messageParameters and the attendees to mark, and the mention
 * autocomplete. A mention resolves when it names an existing user, a guest/email attendee of
 * the room, an existing group, or is @all where the author may mention everyone; anything else
 * stays plain text. Constant queries per message: one for the room's attendees, one for users,
 * one for groups, one per mentioned group for its members.
 */
import { may } from '../../domain/abilities.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ChatMessageRead } from '../../db/repositories/chat-messages.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { findMentions, replaceMentions, type MentionRef } from '../../domain/chat-mentions.js';
import { sortByLastComment } from '../../domain/autocomplete.js';
import { attendeeObject, callObject, groupObject, guestObject, userObject, type RichObject } from '../../domain/chat-rich-objects.js';
import { parseCloudId } from '../../domain/federation/cloud-id.js';
import { ActorType, RoomType } from '../../domain/constants.js';
import { isOneToOneKind } from '../../domain/permissions.js';
import { roomAvatarUrl } from '../../presenters/conversation.js';
import type { MentionNotice, MentionedAttendees } from './chat.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { Repositories } from '../../db/repositories/index.js';

export interface ResolvedMessage {
  /** The text with resolved mentions replaced by {mention-…} placeholders. */
  message: string;
  parameters: Record<string, RichObject>;
  mentioned: MentionedAttendees;
}

export interface AutocompleteItem {
  id: string;
  label: string;
  source: string;
  mentionId: string;
  details?: string;
}

/** The attendee actors a message names: mentioned users, guests and emails, and the replied-to user. */
function namedActors(refs: MentionRef[], replyTo: ChatMessageRead | undefined): Array<{ type: string; id: string }> {
  const out: Array<{ type: string; id: string }> = [];
  for (const ref of refs) {
    if (ref.kind === 'user') out.push({ type: ActorType.USERS, id: ref.id });
    else if (ref.kind === 'guest') out.push({ type: ActorType.GUESTS, id: ref.id });
    else if (ref.kind === 'email') out.push({ type: ActorType.EMAILS, id: ref.id });
    else if (ref.kind === 'federated_user') out.push({ type: ActorType.FEDERATED_USERS, id: parseCloudId(ref.id)?.id ?? ref.id });
  }
  if (replyTo && (replyTo.actor_type === ActorType.USERS || replyTo.actor_type === ActorType.FEDERATED_USERS)) {
    out.push({ type: replyTo.actor_type, id: replyTo.actor_id });
  }
  return out;
}

/** The result types of Talk's mention search, in the order it lists them (SearchPlugin::search). */
const MENTION_SOURCES = ['users', 'groups', 'guests', 'emails', 'teams'];

/** One attendee as a mention suggestion (undefined for kinds that cannot be mentioned). */
function mentionItem(a: AttendeeRow, userNames: ReadonlyMap<string, string>): AutocompleteItem | undefined {
  if (a.actor_type === ActorType.USERS) {
    const label = userNames.get(a.actor_id) ?? a.display_name;
    return { id: a.actor_id, label: label || a.actor_id, source: 'users', mentionId: a.actor_id };
  }
  if (a.actor_type === ActorType.GUESTS || a.actor_type === ActorType.EMAILS) {
    const id = `${a.actor_type === ActorType.GUESTS ? 'guest' : 'email'}/${a.actor_id}`;
    return { id, label: a.display_name || 'Guest', source: a.actor_type, mentionId: id };
  }
  if (a.actor_type === ActorType.GROUPS)
    return { id: `group/${a.actor_id}`, label: a.display_name || a.actor_id, source: 'groups', mentionId: `group/${a.actor_id}` };
  if (a.actor_type === ActorType.CIRCLES)
    return { id: `team/${a.actor_id}`, label: a.display_name || a.actor_id, source: 'teams', mentionId: `team/${a.actor_id}` };
  return undefined;
}

function placeholderType(obj: RichObject): string {
  // A user of another server is `mention-federated-user1` (docs/reference/chat.md#rich-objects).
  if (obj.type === 'user' && obj.server) return 'federated-user';
  return obj.type.replace(/_/g, '-');
}

export class ChatMentions {
  constructor(
    private readonly repos: Pick<Repositories, 'attendees' | 'chatMessages'>,
    private readonly directory: DirectoryService,
    private readonly baseUrl: string,
  ) {}

  /** Resolves the mentions of `text` written by `author` (who is never marked as mentioned). */
  async resolve(room: RoomRow, text: string, opts: { author: AttendeeRow; canMentionAll: boolean; replyTo?: ChatMessageRead }): Promise<ResolvedMessage> {
    const refs = findMentions(text);
    const out: ResolvedMessage = { message: text, parameters: {}, mentioned: { direct: [], indirect: [], notices: [] } };
    const needsAttendees =
      refs.length > 0 || (opts.replyTo !== undefined && (opts.replyTo.actor_type === ActorType.USERS || opts.replyTo.actor_type === ActorType.FEDERATED_USERS));
    if (!needsAttendees) return out;
    // @all and groups reach attendees by who they are, so they need the whole room; otherwise
    // only the named actors are read (a mention in a room of thousands reads a few rows).
    const everyone = refs.some((r) => r.kind === 'all' || r.kind === 'group');
    const attendees = everyone ? await this.repos.attendees.forRoom(room.id) : await this.repos.attendees.actorsOf(room.id, namedActors(refs, opts.replyTo));
    const byActor = new Map(attendees.map((a) => [`${a.actor_type}\0${a.actor_id}`, a]));
    const users = new Map((await this.directory.users.existing(refs.filter((r) => r.kind === 'user').map((r) => r.id))).map((u) => [u.id, u]));
    const groupIds = refs.filter((r) => r.kind === 'group').map((r) => r.id);
    const groups = new Map((groupIds.length ? await this.directory.groups.existing(groupIds) : []).map((g) => [g.id, g]));

    const objects = new Map<string, RichObject>();
    const direct = new Set<number>();
    const indirect = new Set<number>();
    // Who is notified and why, collected per reason and merged in Talk's precedence below.
    const byReason: Record<MentionNotice['reason'], MentionNotice[]> = { reply: [], direct: [], group: [], all: [] };
    const isAuthor = (a: AttendeeRow) => a.id === opts.author.id;
    for (const ref of refs) {
      const key = `${ref.kind}\0${ref.id}`;
      if (ref.kind === 'user') {
        const u = users.get(ref.id);
        if (!u) continue;
        objects.set(key, userObject(u.id, u.display_name || u.id));
        const a = byActor.get(`${ActorType.USERS}\0${u.id}`);
        if (a && !isAuthor(a)) {
          direct.add(a.id);
          byReason.direct.push({ userId: u.id, reason: 'direct' });
        }
      } else if (ref.kind === 'guest' || ref.kind === 'email') {
        const type = ref.kind === 'guest' ? ActorType.GUESTS : ActorType.EMAILS;
        const a = byActor.get(`${type}\0${ref.id}`);
        if (!a) continue;
        objects.set(key, guestObject(type, a.actor_id, a.display_name));
        if (!isAuthor(a)) direct.add(a.id);
      } else if (ref.kind === 'federated_user') {
        // A user of another server in the conversation: their server is told through MESSAGE_POSTED
        // (docs/federation.md "Keeping the conversation current"), which carries the mention flags.
        const a = byActor.get(`${ActorType.FEDERATED_USERS}\0${parseCloudId(ref.id)?.id ?? ref.id}`);
        if (!a) continue;
        objects.set(key, attendeeObject(a.actor_type, a.actor_id, a.display_name));
        if (!isAuthor(a)) direct.add(a.id);
      } else if (ref.kind === 'group') {
        const g = groups.get(ref.id);
        if (!g) continue;
        objects.set(key, groupObject(g.id, g.display_name || g.id));
        const members = new Set(await this.directory.groups.membersOf(g.id));
        for (const a of attendees) {
          if (a.actor_type === ActorType.USERS && members.has(a.actor_id) && !isAuthor(a)) {
            indirect.add(a.id);
            byReason.group.push({ userId: a.actor_id, reason: 'group', sourceId: g.id, sourceName: g.display_name || g.id });
          }
        }
      } else if (ref.kind === 'all') {
        if (!opts.canMentionAll || isOneToOneKind(room.type)) continue;
        objects.set(key, callObject(room.token, room.name, room.type === RoomType.PUBLIC ? 'public' : 'group', this.avatarUrl(room)));
        for (const a of attendees) {
          if (isAuthor(a) || a.actor_type === ActorType.GROUPS || a.actor_type === ActorType.CIRCLES) continue;
          indirect.add(a.id);
          if (a.actor_type === ActorType.USERS) byReason.all.push({ userId: a.actor_id, reason: 'all' });
        }
      }
    }
    // A reply mentions the author of the replied message directly (Talk's reply notification);
    // one of another server learns it from MESSAGE_POSTED.
    if (opts.replyTo && opts.replyTo.actor_type === ActorType.FEDERATED_USERS) {
      const a = byActor.get(`${ActorType.FEDERATED_USERS}\0${opts.replyTo.actor_id}`);
      if (a && !isAuthor(a)) direct.add(a.id);
    }
    if (opts.replyTo && opts.replyTo.actor_type === ActorType.USERS) {
      const a = byActor.get(`${ActorType.USERS}\0${opts.replyTo.actor_id}`);
      if (a && !isAuthor(a)) {
        direct.add(a.id);
        byReason.reply.push({ userId: a.actor_id, reason: 'reply' });
      }
    }

    // Placeholders count per type in order of appearance: mention-user1, mention-user2, mention-call1, ...
    const counters = new Map<string, number>();
    const keys = new Map<string, string>();
    for (const [key, obj] of objects) {
      const t = placeholderType(obj);
      const n = (counters.get(t) ?? 0) + 1;
      counters.set(t, n);
      const placeholder = `mention-${t}${n}`;
      keys.set(key, placeholder);
      out.parameters[placeholder] = obj;
    }
    out.message = replaceMentions(text, (ref: MentionRef) => keys.get(`${ref.kind}\0${ref.id}`));
    // Talk notifies the replied-to author first, then direct mentions, group members, @all;
    // whoever was reached once is not notified again.
    const notices = new Map<string, MentionNotice>();
    for (const n of [...byReason.reply, ...byReason.direct, ...byReason.group, ...byReason.all]) if (!notices.has(n.userId)) notices.set(n.userId, n);
    out.mentioned = { direct: [...direct], indirect: [...indirect].filter((id) => !direct.has(id)), notices: [...notices.values()] };
    return out;
  }

  /**
   * GET /chat/{token}/mentions (docs/reference/chat.md#mention-autocomplete): the "everyone" entry
   * first where it applies, then attendees matching `search` (id or name), the caller excluded, in
   * Talk's order: users, groups, guests, e-mail guests, teams; within each exact matches first, in
   * the order they joined; users then as Talk's sorter orders them ("Sorting").
   */
  async autocomplete(room: RoomRow, caller: AttendeeRow, search: string, limit: number): Promise<AutocompleteItem[]> {
    const term = search.trim().toLowerCase();
    const attendees = await this.repos.attendees.forRoom(room.id);
    const userNames = new Map(
      (await this.directory.users.existing(attendees.filter((a) => a.actor_type === ActorType.USERS).map((a) => a.actor_id))).map((u) => [
        u.id,
        u.display_name,
      ]),
    );
    const bySource = new Map<string, { exact: AutocompleteItem[]; wide: AutocompleteItem[] }>(MENTION_SOURCES.map((s) => [s, { exact: [], wide: [] }]));
    for (const a of attendees) {
      if (a.id === caller.id) continue;
      const item = mentionItem(a, userNames);
      if (!item) continue;
      const exact = term !== '' && (item.id.toLowerCase() === term || item.mentionId.toLowerCase() === term || item.label.toLowerCase() === term);
      if (!exact && term !== '' && !item.id.toLowerCase().includes(term) && !item.label.toLowerCase().includes(term)) continue;
      bySource.get(item.source)![exact ? 'exact' : 'wide'].push(item);
    }
    const users = bySource.get('users')!;
    const matched = [...users.exact, ...users.wide];
    const lastWrote = matched.length
      ? await this.repos.chatMessages.lastCommentAtByUser(
          room.id,
          matched.map((u) => u.id),
        )
      : new Map<string, number>();
    bySource.set('users', { exact: sortByLastComment(matched, lastWrote, term), wide: [] });
    const list = MENTION_SOURCES.flatMap((s) => [...bySource.get(s)!.exact, ...bySource.get(s)!.wide]).slice(0, Math.max(0, limit));
    const everyoneAllowed = !isOneToOneKind(room.type) && may.mentionAll(room, caller);
    const matchesAll = term === '' || 'all'.startsWith(term) || 'here'.startsWith(term) || room.name.toLowerCase().includes(term);
    if (everyoneAllowed && matchesAll) {
      const count = attendees.filter((a) => a.actor_type === ActorType.USERS).length;
      const entry: AutocompleteItem = { id: 'all', label: room.name, source: 'calls', mentionId: 'all' };
      if (count > 1) entry.details = `All ${count} participants`;
      list.unshift(entry);
    }
    return list;
  }

  private avatarUrl(room: RoomRow): string {
    return roomAvatarUrl(this.baseUrl, room);
  }
}
