/**
 * What a note-to-self conversation is made of (docs/reference/conversations.md#note-to-self; Talk's
 * NoteToSelfService): the conversation type is RoomType.NOTE_TO_SELF.
 */
export const NOTE_TO_SELF = {
  name: 'Note to self',
  description: 'A place for your private notes, thoughts and ideas',
  objectType: 'note_to_self',
  emoji: '📝',
} as const;
