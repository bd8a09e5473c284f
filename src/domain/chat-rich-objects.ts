/**
 * Rich objects of chat messageParameters (docs/reference/chat.md#rich-objects). Pure builders.
 */
import { ActorType } from './constants.js';
import { DELETED_USERS } from './chat.js';

export type RichObject = Record<string, string>;

export function userObject(id: string, name: string): RichObject {
  return { type: 'user', id, name, 'mention-id': id };
}

/** A guest or email guest: ids are prefixed `guest/` or `email/`; unnamed guests show as "Guest". */
export function guestObject(actorType: string, id: string, name: string): RichObject {
  const full = `${actorType === ActorType.EMAILS ? 'email' : 'guest'}/${id}`;
  return { type: 'guest', id: full, name: name === '' ? 'Guest' : `${name} (guest)`, 'mention-id': full };
}

export function groupObject(id: string, name: string): RichObject {
  return { type: 'user-group', id, name, 'mention-id': `user-group/${id}` };
}

/** A user who no longer exists (docs/reference/chat.md#rich-objects "unknown/deleted user"). */
export function deletedUserObject(): RichObject {
  return { type: 'highlight', id: DELETED_USERS, name: 'Deleted user' };
}

/** `@all`: the conversation as a call object. */
export function callObject(token: string, name: string, callType: 'one2one' | 'group' | 'public', iconUrl: string): RichObject {
  return { type: 'call', id: token, name, 'call-type': callType, 'icon-url': iconUrl, 'mention-id': 'all' };
}

/** The actor of a message or system message as a rich object (guests/system is "System", guests/cli "Administration"). */
export function actorObject(actorType: string, actorId: string, displayName: string): RichObject {
  if (actorType === ActorType.USERS) return userObject(actorId, displayName);
  if (actorType === DELETED_USERS) return deletedUserObject();
  if (actorType === ActorType.GUESTS && actorId === 'system') return { type: 'guest', id: 'guest/system', name: 'System', 'mention-id': 'guest/system' };
  if (actorType === ActorType.GUESTS && actorId === 'cli') return { type: 'guest', id: 'guest/cli', name: 'Administration', 'mention-id': 'guest/cli' };
  if (actorType === ActorType.GUESTS || actorType === ActorType.EMAILS) return guestObject(actorType, actorId, displayName);
  return { type: 'highlight', id: actorId, name: displayName || actorId };
}

/** The rich object of an attendee named in a system message (user added, moderator promoted, ...). */
export function attendeeObject(actorType: string, actorId: string, displayName: string): RichObject {
  // System messages name a group as type "group"; mentions use "user-group" (docs/reference/chat.md#rich-objects).
  if (actorType === ActorType.GROUPS) return { type: 'group', id: actorId, name: displayName || actorId, 'mention-id': `user-group/${actorId}` };
  if (actorType === ActorType.CIRCLES) return { type: 'circle', id: actorId, name: displayName || actorId, 'mention-id': `team/${actorId}` };
  if (actorType === ActorType.FEDERATED_USERS) {
    // Talk names a federated user by the user part and the server of its cloud id.
    const at = actorId.lastIndexOf('@');
    return { type: 'user', id: actorId.slice(0, at), name: displayName || actorId, server: actorId.slice(at + 1), 'mention-id': `federated_user/${actorId}` };
  }
  return actorObject(actorType, actorId, displayName);
}
