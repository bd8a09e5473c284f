/**
 * Named abilities: who may do what, for rules that more than one service applies. A service asks
 * `may.pinMessages(attendee)` instead of spelling the participant-type test again, so a rule is
 * stated (and tested, test/domain-abilities.test.ts) once. Pure: rows in, a boolean out; the
 * service decides which error a refusal is (docs/reference/participants.md#moderators).
 */
import { Permission, ReadOnlyState, RoomType } from './constants.js';
import { hasPermission, heldInLobby, isLoggedInModeratorType, isModeratorType, isOneToOneKind } from './permissions.js';

/** What an ability needs to know of the participant asking. */
interface Participant {
  participant_type: number;
}

/** The media a call participant publishes, each behind its own permission bit. */
export type Media = 'audio' | 'video' | 'screen';

const MEDIA_PERMISSION: Record<Media, number> = {
  audio: Permission.PUBLISH_AUDIO,
  video: Permission.PUBLISH_VIDEO,
  screen: Permission.PUBLISH_SCREEN,
};

export const may = {
  /**
   * Moderate a conversation (settings, participants, breakout rooms, a call for everyone):
   * owners, moderators and guest moderators (Talk's "has moderator permissions").
   */
  moderate(participant: Participant): boolean {
    return isModeratorType(participant.participant_type);
  },

  /**
   * What Talk keeps to logged-in moderators (owners and moderators, not guest moderators):
   * deleting a conversation, controlling others in a call on the signaling server.
   */
  moderateAsUser(participant: Participant): boolean {
    return isLoggedInModeratorType(participant.participant_type);
  },

  /**
   * Pass the lobby: while it is on, only moderators and participants with the lobby-ignore
   * permission are let in (chat, call, participant list, mentions' notifications;
   * docs/reference/conversations.md#lobby-effect). `lobbyState` as it is at the time asked
   * (`lobbyStateAt`), `effective` the participant's effective permissions there.
   */
  passLobby(lobbyState: number, participant: Participant, effective: number): boolean {
    return !heldInLobby(lobbyState, participant.participant_type, effective);
  },

  /** Post in the chat (messages, reactions, shares, polls): the chat permission (docs/reference/participants.md#effective-permissions-and-call-start). */
  chat(effective: number): boolean {
    return hasPermission(effective, Permission.CHAT);
  },

  /** Publish audio, video or the screen in a call: its publishing permission (docs/reference/participants.md#effective-permissions-and-call-start). */
  publish(effective: number, media: Media): boolean {
    return hasPermission(effective, MEDIA_PERMISSION[media]);
  },

  /** Bring someone into a running call (ring an attendee, dial a phone out): the start-call permission (docs/reference/participants.md#effective-permissions-and-call-start). */
  callOthers(effective: number): boolean {
    return hasPermission(effective, Permission.START_CALL);
  },

  /** Send control messages to others in a call (the signaling server's `control` permission, the internal relay's `control` messages): logged-in moderators. */
  controlOthersInCall(participant: Participant): boolean {
    return isLoggedInModeratorType(participant.participant_type);
  },

  /** End the call for everyone (DELETE /call/{token} with all=true): moderators; anyone else only leaves it. */
  endCallForEveryone(participant: Participant): boolean {
    return isModeratorType(participant.participant_type);
  },

  /** Whether the conversation takes new messages at all: not read-only, not the changelog. */
  postIn(room: { read_only: number; type: number }): boolean {
    return room.read_only !== ReadOnlyState.READ_ONLY && room.type !== RoomType.CHANGELOG;
  },

  /** Edit or delete other participants' messages: logged-in moderators, and nobody in a one-to-one (Talk's ChatController). */
  changeOthersMessages(room: { type: number }, participant: Participant): boolean {
    return isLoggedInModeratorType(participant.participant_type) && !isOneToOneKind(room.type);
  },

  /** Clear the whole chat history: logged-in moderators (Talk's ChatController clearHistory). */
  clearHistory(participant: Participant): boolean {
    return isLoggedInModeratorType(participant.participant_type);
  },

  /**
   * Be assigned to one breakout room (the attendee map, a move, a switch, the signaling
   * server's switch when they start): anybody but moderators, who are in every breakout room
   * (docs/reference/conversations.md#breakout-rooms).
   */
  joinOneBreakoutRoom(participant: Participant): boolean {
    return !isModeratorType(participant.participant_type);
  },

  /**
   * Mention everyone with @all (or @here): anybody while the conversation's mention permissions
   * are 0, only moderators while they are 1 (PUT /room/{t}/mention-permissions; Talk's
   * ChatManager "can_mention_all").
   */
  mentionAll(room: { mention_permissions: number }, participant: Participant): boolean {
    return room.mention_permissions === 0 || isModeratorType(participant.participant_type);
  },

  /** Pin and unpin messages: moderators (Talk's ChatController pinMessage). */
  pinMessages(participant: Participant): boolean {
    return isModeratorType(participant.participant_type);
  },

  /** Save, list and see poll drafts: moderators (Talk's PollController). */
  draftPolls(participant: Participant): boolean {
    return isModeratorType(participant.participant_type);
  },

  /** Edit a draft, close a poll, see who voted: its author or a moderator (Talk's PollController). */
  managePoll(participant: Participant, isAuthor: boolean): boolean {
    return isAuthor || isModeratorType(participant.participant_type);
  },

  /**
   * Delete a poll: its author or a logged-in moderator when the message that shared it is
   * deleted; a draft (no author check) only logged-in moderators (Talk's PollController).
   */
  deletePoll(participant: Participant, isAuthor: boolean): boolean {
    return isAuthor || isLoggedInModeratorType(participant.participant_type);
  },
} as const;
