/**
 * A poll's states and result modes (docs/reference/chat.md#polls, Talk's Poll::STATUS_* and
 * Poll::MODE_*), shared by the polls service and the SQL that moves polls between states.
 */
export const PollStatus = { OPEN: 0, CLOSED: 1, DRAFT: 2 } as const;
export const PollMode = { PUBLIC: 0, HIDDEN: 1 } as const;
