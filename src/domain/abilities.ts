/**
 * Named abilities: who may do what, for rules that more than one service applies. A service asks
 * `may.pinMessages(attendee)` instead of spelling the participant-type test again, so a rule is
 * stated (and tested, test/domain-abilities.test.ts) once. Pure: rows in, a boolean out; the
 * service decides which error a refusal is (docs/reference/participants.md#moderators).
 */
import { isModeratorType } from './permissions.js';

/** What an ability needs to know of the participant asking. */
interface Participant {
  participant_type: number;
}

export const may = {
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
} as const;
