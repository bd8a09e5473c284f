/**
 * English texts of system messages as Talk's SystemMessage parser words them
 * (docs/reference/chat.md#system-messages, "Typical English rendering"), for the viewer: "You …" when the viewer
 * is the actor, "An administrator …" for the command line (`guests/cli`) where Talk has that
 * wording, "System …" for automatic actions (`guests/system`) where Talk has it. Placeholders are
 * rich-object keys of the message's parameters ({actor}, {user}, {group}). Unknown ids render as
 * "{actor} updated the conversation" so a newer row never breaks an older reader.
 */

/** Who reads the message, relative to its actor and the attendee it names. */
export interface Viewpoint {
  /** The viewer is the actor. */
  you: boolean;
  /** The viewer is the attendee the message names ({user}). */
  youAreUser: boolean;
  /** The actor is the command line (guests/cli). */
  cli: boolean;
  /** The actor is an automatic action (guests/system). */
  system: boolean;
  /** The actor is the attendee the message names (joined or left by themselves). */
  self: boolean;
}

type Render = (p: Record<string, unknown>, v: Viewpoint) => string;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** A call's duration as Talk shows it: m:ss, or h:mm:ss from one hour. */
function duration(p: Record<string, unknown>): string {
  const total = typeof p.duration === 'number' && p.duration > 0 ? Math.floor(p.duration) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

const callUserCount = (p: Record<string, unknown>): number =>
  (Array.isArray(p.users) ? p.users.length : 0) + (Array.isArray(p.cloudIds) ? p.cloudIds.length : 0);
const callGuestCount = (p: Record<string, unknown>): number => (typeof p.guests === 'number' && p.guests > 0 ? p.guests : 0);

/**
 * How many of a call's users its text names as `{user1}`…: all of them up to four, five when
 * they are exactly five and no guest took part, else four and "N others" (Talk's parseCall).
 */
export function namedCallUsers(p: Record<string, unknown>): number {
  const users = callUserCount(p);
  if (users <= 4) return users;
  return users === 5 && callGuestCount(p) === 0 ? 5 : 4;
}

/**
 * "{user1}, {user2} and 3 guests" as Talk's parseCall counts them: users (and federated users)
 * up to five; past five, or five with guests, four and "N others" (guests included).
 */
function callPeople(p: Record<string, unknown>): string {
  const users = callUserCount(p);
  const guests = callGuestCount(p);
  const named = namedCallUsers(p);
  const parts: string[] = [];
  for (let i = 1; i <= named; i++) parts.push(`{user${i}}`);
  if (named < users) {
    const others = guests + users - named;
    parts.push(others === 1 ? '1 other' : `${others} others`);
  } else if (guests > 0) {
    parts.push(guests === 1 ? '1 guest' : `${guests} guests`);
  }
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function callEnded(p: Record<string, unknown>): string {
  const people = callPeople(p);
  return people ? `Call with ${people} ended (Duration ${duration(p)})` : `Call ended (Duration ${duration(p)})`;
}

/** The subject of a sentence Talk words for the command line too ("An administrator …"). */
const who = (v: Viewpoint): string => (v.you ? 'You' : v.cli ? 'An administrator' : '{actor}');
/** The subject of a sentence Talk words only for the viewer ("You …") and everyone else. */
const whoNoCli = (v: Viewpoint): string => (v.you ? 'You' : '{actor}');

/** "{actor} added {user}" and the like: the viewer as actor, then as the one named, then the command line. */
function aboutUser(v: Viewpoint, did: string, rest = ''): string {
  if (v.you) return `You ${did} {user}${rest}`;
  if (v.youAreUser) return `${v.cli ? 'An administrator' : '{actor}'} ${did} you${rest}`;
  return `${who(v)} ${did} {user}${rest}`;
}

/** Talk rounds the expiration to the largest whole unit: weeks, days, hours, else minutes. */
function expiration(p: Record<string, unknown>): string {
  const s = typeof p.seconds === 'number' ? p.seconds : 0;
  const units: Array<[number, string]> = [
    [604800, 'week'],
    [86400, 'day'],
    [3600, 'hour'],
  ];
  for (const [size, unit] of units) if (s >= size) return plural(Math.round(s / size), unit);
  return plural(Math.round(s / 60), 'minute');
}
const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

const TEXTS: Record<string, Render> = {
  conversation_created: (_p, v) =>
    v.you ? 'You created the conversation' : v.system ? 'System created the conversation' : `${who(v)} created the conversation`,
  conversation_renamed: (p, v) => `${who(v)} renamed the conversation from "${str(p.oldName)}" to "${str(p.newName)}"`,
  description_set: (_p, v) => `${who(v)} set the description`,
  description_removed: (_p, v) => `${who(v)} removed the description`,
  read_only: (_p, v) => `${who(v)} locked the conversation`,
  read_only_off: (_p, v) => `${who(v)} unlocked the conversation`,
  listable_none: (_p, v) => `${who(v)} limited the conversation to the current participants`,
  listable_users: (_p, v) => `${who(v)} opened the conversation to registered users`,
  listable_all: (_p, v) => `${who(v)} opened the conversation to registered users and users created with the Guests app`,
  lobby_none: (_p, v) => `${whoNoCli(v)} opened the conversation to everyone`,
  lobby_non_moderators: (_p, v) => `${whoNoCli(v)} restricted the conversation to moderators`,
  lobby_timer_reached: () => 'The conversation is now open to everyone',
  guests_allowed: (_p, v) => `${who(v)} allowed guests`,
  guests_disallowed: (_p, v) => `${who(v)} disallowed guests`,
  password_set: (_p, v) => `${who(v)} set a password`,
  password_removed: (_p, v) => `${who(v)} removed the password`,
  user_added: (_p, v) => (v.self ? `${whoNoCli(v)} joined the conversation` : aboutUser(v, 'added')),
  user_removed: (_p, v) => (v.self ? `${whoNoCli(v)} left the conversation` : aboutUser(v, 'removed')),
  group_added: (_p, v) => `${who(v)} added group {group}`,
  group_removed: (_p, v) => `${who(v)} removed group {group}`,
  circle_added: (_p, v) => `${who(v)} added team {circle}`,
  circle_removed: (_p, v) => `${who(v)} removed team {circle}`,
  phone_added: (_p, v) => `${who(v)} added {phone}`,
  phone_removed: (_p, v) => `${who(v)} removed {phone}`,
  federated_user_added: (_p, v) => `${who(v)} invited {federated_user}`,
  federated_user_removed: (_p, v) => `${who(v)} removed {federated_user}`,
  moderator_promoted: (_p, v) => aboutUser(v, 'promoted', ' to moderator'),
  moderator_demoted: (_p, v) => aboutUser(v, 'demoted', ' from moderator'),
  guest_moderator_promoted: (_p, v) => aboutUser(v, 'promoted', ' to moderator'),
  guest_moderator_demoted: (_p, v) => aboutUser(v, 'demoted', ' from moderator'),
  message_deleted: (_p, v) => `${whoNoCli(v)} deleted a message`,
  message_edited: (_p, v) => `${whoNoCli(v)} edited a message`,
  message_pinned: (_p, v) => `${whoNoCli(v)} pinned a message`,
  message_unpinned: (_p, v) => `${whoNoCli(v)} unpinned a message`,
  history_cleared: (_p, v) => `${whoNoCli(v)} cleared the history of the conversation`,
  message_expiration_enabled: (p, v) => `${whoNoCli(v)} set the message expiration to ${expiration(p)}`,
  message_expiration_disabled: (_p, v) => `${whoNoCli(v)} disabled message expiration`,
  avatar_set: (_p, v) => `${whoNoCli(v)} set the conversation picture`,
  avatar_removed: (_p, v) => `${whoNoCli(v)} removed the conversation picture`,
  reaction_revoked: (_p, v) => `${whoNoCli(v)} deleted a reaction`,
  poll_voted: () => 'Someone voted on the poll {poll}',
  poll_closed: (_p, v) => `${whoNoCli(v)} ended the poll {poll}`,
  breakout_rooms_started: (_p, v) => `${whoNoCli(v)} started breakout rooms`,
  breakout_rooms_stopped: (_p, v) => `${whoNoCli(v)} stopped breakout rooms`,
  call_started: (p, v) => `${whoNoCli(v)} started a ${p.silent === true ? 'silent ' : ''}call`,
  call_started_outgoing: (p) => `Outgoing ${p.silent === true ? 'silent ' : ''}call`,
  call_started_incoming: (p) => `Incoming ${p.silent === true ? 'silent ' : ''}call`,
  call_joined: (_p, v) => `${whoNoCli(v)} joined the call`,
  call_left: (_p, v) => `${whoNoCli(v)} left the call`,
  call_ended: (p) => callEnded(p),
  call_ended_one_to_one: (p) => `Call ended (Duration ${duration(p)})`,
  // Talk words the end for everyone the same for every viewer (no "You").
  call_ended_everyone: (p) => {
    const people = callPeople(p);
    return `{actor} ended the call${people ? ` with ${people}` : ''} (Duration ${duration(p)})`;
  },
  call_ended_max_duration: (p) => {
    const people = callPeople(p);
    return `Call${people ? ` with ${people}` : ''} was ended, as it reached the maximum call duration (Duration ${duration(p)})`;
  },
  call_missed: () => 'Missed call',
  call_tried: () => 'Unanswered call',
};

/** The text of system message `id` for a viewer. */
export function systemMessageText(id: string, params: Record<string, unknown>, v: Viewpoint): string {
  const render = TEXTS[id];
  return render ? render(params, v) : `${v.you ? 'You' : '{actor}'} updated the conversation`;
}
