/**
 * Who a one-to-one conversation is between: its name is the JSON list of its two user ids
 * (docs/reference/conversations.md#creation); names written before that held the other
 * user's id alone. Pure, used by the record (its name and avatar), notifications and the
 * change-feed topics of an answer (the other user's status is shown).
 */
import { isOneToOneKind } from './permissions.js';

/** What these rules read of a conversation. */
export interface OneToOneRoom {
  type: number;
  name: string;
}

/** The two user ids of a one-to-one conversation (its name is their JSON list), or undefined. */
export function oneToOneUserIds(room: OneToOneRoom): string[] | undefined {
  if (!isOneToOneKind(room.type)) return undefined;
  try {
    const parsed = JSON.parse(room.name);
    if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return parsed as string[];
  } catch {
    // Legacy names held a single user id.
  }
  return undefined;
}

/** The other user of a one-to-one conversation for `userId` (legacy names: the stored id). */
export function otherUserId(room: OneToOneRoom, userId: string | undefined): string | undefined {
  const ids = oneToOneUserIds(room);
  if (!ids) return isOneToOneKind(room.type) && room.name !== '' ? room.name : undefined;
  if (userId === undefined || !ids.includes(userId)) return undefined;
  return ids.find((id) => id !== userId) ?? userId;
}
