/**
 * Who may see a conversation (docs/reference/conversations.md#lookup-and-visibility): the rule behind the lookup every
 * conversation endpoint starts with. Anything not visible answers the same 404 as a missing
 * conversation, so a 404 never tells whether a token exists.
 */
import { GUEST_APP_GROUP, ListableScope, RoomType } from './constants.js';

export interface VisibilityFacts {
  /** The caller has an attendee row there (as a user, or as a guest by its cookie session). */
  isAttendee: boolean;
  /** The operator (CLI) sees everything. */
  isSystem: boolean;
  /** A validated SIP-bridge request sees every conversation. */
  sipBridge: boolean;
  /** A logged-in user (listed conversations are only for them). */
  loggedIn: boolean;
  roomType: number;
  /** The room's listable scope (ListableScope). */
  listable: number;
}

/**
 * `visible` or `hidden` when the facts decide; `if-listed` when only the caller's listable scopes
 * can (they cost a group lookup, so callers load them only then and ask `isListedFor`).
 */
export function conversationVisibility(f: VisibilityFacts): 'visible' | 'hidden' | 'if-listed' {
  if (f.isAttendee || f.isSystem || f.sipBridge || f.roomType === RoomType.PUBLIC) return 'visible';
  if (f.loggedIn && f.listable !== ListableScope.NONE) return 'if-listed';
  return 'hidden';
}

/**
 * The listable scopes under which a room is listed for a caller: none for anonymous callers,
 * scope 2 for everyone logged in, scope 1 too unless the user is a guest-app account.
 */
export function listableScopes(loggedIn: boolean, groups: readonly string[]): number[] {
  if (!loggedIn) return [];
  return groups.includes(GUEST_APP_GROUP) ? [ListableScope.ALL] : [ListableScope.USERS, ListableScope.ALL];
}

/** The room is listed for a caller with these scopes. */
export function isListedFor(listable: number, scopes: readonly number[]): boolean {
  return listable !== ListableScope.NONE && scopes.includes(listable);
}
