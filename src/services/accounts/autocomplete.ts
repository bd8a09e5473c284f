/**
 * Finding people to start a conversation with or to add (docs/api.md "Finding people"):
 * Nextcloud's `GET /core/autocomplete/get` as Talk's apps call it. Each share type is searched as
 * its server plugin searches (lib/private/Collaboration/Collaborators/UserPlugin.php, GroupPlugin,
 * MailPlugin; the Teams app's plugin for teams), then, for `itemType=call`, filtered as Talk's
 * lib/Collaboration/Collaborators/Listener.php filters: users and groups outside a non-empty
 * `allowed_groups` go, and with `itemId` a conversation the caller is in, so do its current
 * participants (self-joined users stay, so a moderator can add them for good).
 *
 * Cost: one query per share type asked for (bounded by `limit`), one for the statuses of the users
 * found, one for the exact id lookup, and for `itemType=call` at most one for the allowed groups
 * and two for the conversation and its matching attendees: never one per user.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { UserRow } from '../../db/repositories/users.js';
import { ActorType, ParticipantType } from '../../domain/constants.js';
import {
  AUTOCOMPLETE_SOURCE,
  AutocompleteShareType,
  asksTalkSorter,
  looksLikeEmail,
  matchesExactly,
  mergeAutocomplete,
  sortByLastComment,
  type AutocompleteEntry,
  type AutocompleteQuery,
  type AutocompleteSet,
} from '../../domain/autocomplete.js';
import type { PublicStatus } from '../../domain/user-status.js';
import type { RequestContext } from '../platform/request-context.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { UserStatusService } from './user-status.js';

/** Talk's bridge bot account never shows up (Listener::filterBridgeBot). */
const BRIDGE_BOT_USER_ID = 'bridge-bot';

const ACTOR_OF_SOURCE: Record<string, string> = { users: ActorType.USERS, groups: ActorType.GROUPS, circles: ActorType.CIRCLES };

export class AutocompleteService {
  constructor(
    private readonly repos: Pick<Repositories, 'users' | 'groups' | 'teams' | 'attendees' | 'chatMessages'>,
    private readonly userStatus: UserStatusService,
    private readonly rooms: RoomsService,
  ) {}

  /** The results, and whether a share type's page was full (then Nextcloud links the next page). */
  async search(ctx: RequestContext, q: AutocompleteQuery): Promise<{ entries: AutocompleteEntry[]; more: boolean }> {
    const me = ctx.user!;
    const sets = new Map<string, AutocompleteSet>();
    for (const type of new Set(q.shareTypes)) {
      const source = AUTOCOMPLETE_SOURCE[type];
      if (!source || sets.has(source)) continue;
      sets.set(source, await this.searchType(type, me, q));
    }
    const more = [...sets.values()].some((s) => s.more === true);
    if (q.itemType === 'call') await this.filterForTalk(ctx, sets, q.itemId);
    const users = sets.get('users');
    if (users && asksTalkSorter(q.sorter)) {
      // The sorter runs on the merged list, exact matches and the others together (AutoCompleteController::get).
      sets.set('users', { exact: await this.sortByChat(me.id, q, [...users.exact, ...users.wide]), wide: [] });
    }
    return { entries: mergeAutocomplete([...sets.values()]), more };
  }

  /**
   * Talk's `talk_chat_participants` sorter (docs/reference/chat.md#mention-autocomplete "Sorting"):
   * for `itemType=chat` with `itemId` a conversation's id, users who wrote there last come first.
   * Only for a conversation the caller is in, so the order tells nothing about others' chats.
   */
  private async sortByChat(myId: string, q: AutocompleteQuery, users: AutocompleteEntry[]): Promise<AutocompleteEntry[]> {
    const roomId = q.itemType === 'chat' && /^[1-9][0-9]{0,15}$/.test(q.itemId ?? '') ? Number(q.itemId) : undefined;
    if (roomId === undefined || !Number.isSafeInteger(roomId)) return users;
    const mine = await this.repos.attendees.actorsOf(roomId, [{ type: ActorType.USERS, id: myId }]);
    if (mine.length === 0) return users;
    const last = await this.repos.chatMessages.lastCommentAtByUser(
      roomId,
      users.map((u) => u.id),
    );
    return sortByLastComment(users, last);
  }

  private searchType(type: number, me: UserRow, q: AutocompleteQuery): Promise<AutocompleteSet> {
    switch (type) {
      case AutocompleteShareType.USER:
        return this.users(me, q);
      case AutocompleteShareType.GROUP:
        return this.groups(q);
      case AutocompleteShareType.EMAIL:
        return this.email(q);
      default:
        return this.teams(me, q);
    }
  }

  /**
   * UserPlugin: enabled users whose id, name or e-mail contains the term (a page of `limit` by
   * id), without the caller, sorted by name; exact when id, name or e-mail equals the term. On
   * the first page a user whose id is the term is added as exact when the page missed them (the
   * caller included, as in Nextcloud).
   */
  private async users(me: UserRow, q: AutocompleteQuery): Promise<AutocompleteSet> {
    const rows = await this.repos.users.list(q.search, q.limit, q.offset);
    const page = rows.filter((u) => u.enabled === 1 && u.id !== me.id);
    // UserManager::searchDisplayName sorts by strcasecmp of the names.
    page.sort((a, b) => compareCaseless(nameOf(a), nameOf(b)));
    const byId = page.some((u) => matchesExactly(q.search, u.id));
    const direct = !byId && q.offset === 0 && q.search !== '' ? await this.repos.users.findCaseInsensitive(q.search) : undefined;
    const all = direct && direct.enabled === 1 ? [...page, direct] : page;
    const statuses = await this.userStatus.forUsers(all.map((u) => u.id));
    const set: AutocompleteSet = { exact: [], wide: [], more: rows.length >= q.limit };
    for (const u of page) {
      const entry = userEntry(u, statuses.get(u.id));
      (matchesExactly(q.search, u.id, nameOf(u), u.email) ? set.exact : set.wide).push(entry);
    }
    if (direct && direct.enabled === 1) set.exact.push(userEntry(direct, statuses.get(direct.id)));
    return set;
  }

  /** GroupPlugin: groups whose id or name contains the term; exact when either equals it. */
  private async groups(q: AutocompleteQuery): Promise<AutocompleteSet> {
    const rows = await this.repos.groups.list(q.search, q.limit, q.offset);
    const set: AutocompleteSet = { exact: [], wide: [], more: rows.length >= q.limit };
    for (const g of rows) {
      const entry = plainEntry(g.id, g.display_name || g.id, 'groups');
      (matchesExactly(q.search, g.id, g.display_name) ? set.exact : set.wide).push(entry);
    }
    return set;
  }

  /** MailPlugin without an address book: a well-formed address is offered as itself. */
  private async email(q: AutocompleteQuery): Promise<AutocompleteSet> {
    if (q.offset > 0 || !looksLikeEmail(q.search)) return { exact: [], wide: [] };
    return { exact: [plainEntry(q.search, q.search, 'emails')], wide: [] };
  }

  /** The Teams app's plugin: teams the caller is a member of; exact when id or name equals the term. */
  private async teams(me: UserRow, q: AutocompleteQuery): Promise<AutocompleteSet> {
    const rows = await this.repos.teams.searchForMember(me.id, q.search, q.limit, q.offset);
    const set: AutocompleteSet = { exact: [], wide: [], more: rows.length >= q.limit };
    for (const t of rows) {
      const entry = plainEntry(t.id, t.display_name || t.id, 'circles');
      (matchesExactly(q.search, t.id, t.display_name) ? set.exact : set.wide).push(entry);
    }
    return set;
  }

  /** Talk's Listener for `itemType=call`. */
  private async filterForTalk(ctx: RequestContext, sets: Map<string, AutocompleteSet>, itemId: string | undefined): Promise<void> {
    const drop = (source: string, keep: (e: AutocompleteEntry) => boolean) => {
      const set = sets.get(source);
      if (!set) return;
      set.exact = set.exact.filter(keep);
      set.wide = set.wide.filter(keep);
    };
    drop('users', (e) => e.id !== BRIDGE_BOT_USER_ID);
    const allowed = (await ctx.config()).list('allowed_groups');
    if (allowed.length > 0) {
      const users = sets.get('users');
      const ids = users ? [...users.exact, ...users.wide].map((e) => e.id) : [];
      const members = await this.repos.groups.membersAmong(allowed, ids);
      drop('users', (e) => members.has(e.id));
      drop('groups', (e) => allowed.includes(e.id));
    }
    if (itemId === undefined || itemId === 'new') return;
    const found = await this.rooms.lookup(ctx, itemId);
    if (!found?.attendee) return;
    const actors = [...sets.entries()].flatMap(([source, set]) =>
      ACTOR_OF_SOURCE[source] ? [...set.exact, ...set.wide].map((e) => ({ type: ACTOR_OF_SOURCE[source], id: e.id })) : [],
    );
    const present = new Set(
      (await this.repos.attendees.actorsOf(found.room.id, actors))
        // Self-joined users stay listed, so moderators can add them as permanent participants.
        .filter((a) => !(a.actor_type === ActorType.USERS && a.participant_type === ParticipantType.USER_SELF_JOINED))
        .map((a) => `${a.actor_type}/${a.actor_id}`),
    );
    for (const [source, actorType] of Object.entries(ACTOR_OF_SOURCE)) drop(source, (e) => !present.has(`${actorType}/${e.id}`));
  }
}

const nameOf = (u: UserRow) => u.display_name || u.id;

function compareCaseless(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

function userEntry(u: UserRow, status: PublicStatus | undefined): AutocompleteEntry {
  return {
    id: u.id,
    label: nameOf(u),
    icon: 'icon-user',
    source: 'users',
    status: status ? { status: status.status, message: status.message, icon: status.icon, clearAt: status.clearAt } : '',
    subline: status?.message ?? '',
    shareWithDisplayNameUnique: u.email !== '' ? u.email : u.id,
  };
}

function plainEntry(id: string, label: string, source: string): AutocompleteEntry {
  return { id, label, icon: '', source, status: '', subline: '', shareWithDisplayNameUnique: '' };
}
