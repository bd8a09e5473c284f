/**
 * English texts of system messages (talk-chat-calls.md §2, "Typical English rendering"), for
 * the viewer: "You …" when the viewer is the actor. Placeholders are rich-object keys of the
 * message's parameters ({actor}, {user}, {group}). Unknown ids render as "{actor} updated the
 * conversation" so a newer row never breaks an older reader.
 */

type Render = (p: Record<string, unknown>, you: boolean, youAreUser: boolean) => string;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** A call's duration as Talk shows it: m:ss, or h:mm:ss from one hour. */
function duration(p: Record<string, unknown>): string {
  const total = typeof p.duration === 'number' && p.duration > 0 ? Math.floor(p.duration) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** "{user1}, {user2} and 3 guests": the rendered user objects (at most five, else four and "N others"). */
function callPeople(p: Record<string, unknown>): string {
  const users = Array.isArray(p.users) ? p.users.length : 0;
  const guests = typeof p.guests === 'number' ? p.guests : 0;
  const parts: string[] = [];
  const shown = users > 5 ? 4 : users;
  for (let i = 1; i <= shown; i++) parts.push(`{user${i}}`);
  if (users > 5) parts.push(`${users - 4} others`);
  if (guests > 0) parts.push(guests === 1 ? '1 guest' : `${guests} guests`);
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function callEnded(p: Record<string, unknown>): string {
  const who = callPeople(p);
  return who ? `Call with ${who} ended (Duration ${duration(p)})` : `Call ended (Duration ${duration(p)})`;
}

const TEXTS: Record<string, Render> = {
  conversation_created: (_p, you) => (you ? 'You created the conversation' : '{actor} created the conversation'),
  conversation_renamed: (p, you) => `${you ? 'You' : '{actor}'} renamed the conversation from "${str(p.oldName)}" to "${str(p.newName)}"`,
  description_set: (p, you) => `${you ? 'You' : '{actor}'} set the description to "${str(p.newDescription)}"`,
  description_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed the description`,
  read_only: (_p, you) => `${you ? 'You' : '{actor}'} locked the conversation`,
  read_only_off: (_p, you) => `${you ? 'You' : '{actor}'} unlocked the conversation`,
  listable_none: (_p, you) => `${you ? 'You' : '{actor}'} limited the conversation to the current participants`,
  listable_users: (_p, you) => `${you ? 'You' : '{actor}'} opened the conversation to registered users`,
  listable_all: (_p, you) => `${you ? 'You' : '{actor}'} opened the conversation to registered users and users created with the Guests app`,
  lobby_none: (_p, you) => `${you ? 'You' : '{actor}'} opened the conversation to everyone`,
  lobby_non_moderators: (_p, you) => `${you ? 'You' : '{actor}'} restricted the conversation to moderators`,
  lobby_timer_reached: () => 'The conversation is now open to everyone',
  guests_allowed: (_p, you) => `${you ? 'You' : '{actor}'} allowed guests`,
  guests_disallowed: (_p, you) => `${you ? 'You' : '{actor}'} disallowed guests`,
  password_set: (_p, you) => `${you ? 'You' : '{actor}'} set a password`,
  password_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed the password`,
  user_added: (_p, you, youAreUser) =>
    youAreUser ? (you ? 'You joined the conversation' : '{actor} added you') : you ? 'You added {user}' : '{actor} added {user}',
  user_removed: (_p, you, youAreUser) =>
    youAreUser ? (you ? 'You left the conversation' : '{actor} removed you') : you ? 'You removed {user}' : '{actor} removed {user}',
  group_added: (_p, you) => `${you ? 'You' : '{actor}'} added group {group}`,
  group_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed group {group}`,
  circle_added: (_p, you) => `${you ? 'You' : '{actor}'} added team {circle}`,
  circle_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed team {circle}`,
  phone_added: (_p, you) => `${you ? 'You' : '{actor}'} added {phone}`,
  phone_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed {phone}`,
  moderator_promoted: (_p, you, youAreUser) => (youAreUser ? '{actor} promoted you to moderator' : `${you ? 'You' : '{actor}'} promoted {user} to moderator`),
  moderator_demoted: (_p, you, youAreUser) => (youAreUser ? '{actor} demoted you from moderator' : `${you ? 'You' : '{actor}'} demoted {user} from moderator`),
  guest_moderator_promoted: (_p, you) => `${you ? 'You' : '{actor}'} promoted {user} to moderator`,
  guest_moderator_demoted: (_p, you) => `${you ? 'You' : '{actor}'} demoted {user} from moderator`,
  message_deleted: (_p, you) => `${you ? 'You' : '{actor}'} deleted a message`,
  message_edited: (_p, you) => `${you ? 'You' : '{actor}'} edited a message`,
  history_cleared: (_p, you) => `${you ? 'You' : '{actor}'} cleared the history of the conversation`,
  message_expiration_enabled: (_p, you) => `${you ? 'You' : '{actor}'} set the message expiration`,
  message_expiration_disabled: (_p, you) => `${you ? 'You' : '{actor}'} disabled the message expiration`,
  avatar_set: (_p, you) => `${you ? 'You' : '{actor}'} set the conversation picture`,
  avatar_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed the conversation picture`,
  reaction_revoked: (_p, you) => `${you ? 'You' : '{actor}'} deleted a reaction`,
  poll_voted: () => 'Someone voted on the poll {poll}',
  poll_closed: (_p, you) => `${you ? 'You' : '{actor}'} ended the poll {poll}`,
  breakout_rooms_started: () => 'Breakout rooms started',
  breakout_rooms_stopped: () => 'Breakout rooms stopped',
  call_started: (p, you) => `${you ? 'You' : '{actor}'} started a ${p.silent === true ? 'silent ' : ''}call`,
  call_started_outgoing: (p) => `Outgoing ${p.silent === true ? 'silent ' : ''}call`,
  call_started_incoming: (p) => `Incoming ${p.silent === true ? 'silent ' : ''}call`,
  call_joined: (_p, you) => `${you ? 'You' : '{actor}'} joined the call`,
  call_left: (_p, you) => `${you ? 'You' : '{actor}'} left the call`,
  call_ended: (p) => callEnded(p),
  call_ended_one_to_one: (p) => `Call ended (Duration ${duration(p)})`,
  call_ended_everyone: (p, you) => {
    const who = callPeople(p);
    return `${you ? 'You' : '{actor}'} ended the call${who ? ` with ${who}` : ''} (Duration ${duration(p)})`;
  },
  call_ended_max_duration: (p) => {
    const who = callPeople(p);
    return `Call${who ? ` with ${who}` : ''} was ended, as it reached the maximum call duration (Duration ${duration(p)})`;
  },
  call_missed: () => 'Missed call',
  call_tried: () => 'Unanswered call',
};

/** The text of system message `id` for a viewer (`you`: the viewer is the actor; `youAreUser`: the viewer is {user}). */
export function systemMessageText(id: string, params: Record<string, unknown>, you: boolean, youAreUser: boolean): string {
  const render = TEXTS[id];
  return render ? render(params, you, youAreUser) : `${you ? 'You' : '{actor}'} updated the conversation`;
}
