/**
 * English texts of system messages (talk-chat-calls.md §2, "Typical English rendering"), for
 * the viewer: "You …" when the viewer is the actor. Placeholders are rich-object keys of the
 * message's parameters ({actor}, {user}, {group}). Unknown ids render as "{actor} updated the
 * conversation" so a newer row never breaks an older reader.
 */

type Render = (p: Record<string, unknown>, you: boolean, youAreUser: boolean) => string;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

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
  user_added: (_p, you, youAreUser) => (youAreUser ? (you ? 'You joined the conversation' : '{actor} added you') : you ? 'You added {user}' : '{actor} added {user}'),
  user_removed: (_p, you, youAreUser) => (youAreUser ? (you ? 'You left the conversation' : '{actor} removed you') : you ? 'You removed {user}' : '{actor} removed {user}'),
  group_added: (_p, you) => `${you ? 'You' : '{actor}'} added group {group}`,
  group_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed group {group}`,
  circle_added: (_p, you) => `${you ? 'You' : '{actor}'} added team {circle}`,
  circle_removed: (_p, you) => `${you ? 'You' : '{actor}'} removed team {circle}`,
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
  breakout_rooms_started: () => 'Breakout rooms started',
  breakout_rooms_stopped: () => 'Breakout rooms stopped',
};

/** The text of system message `id` for a viewer (`you`: the viewer is the actor; `youAreUser`: the viewer is {user}). */
export function systemMessageText(id: string, params: Record<string, unknown>, you: boolean, youAreUser: boolean): string {
  const render = TEXTS[id];
  return render ? render(params, you, youAreUser) : `${you ? 'You' : '{actor}'} updated the conversation`;
}
