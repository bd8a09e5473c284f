/** Rules for account and group identifiers (Nextcloud's). */

const USER_ID = /^[a-zA-Z0-9 _.@\-']+$/;

/** Returns a reason when `id` is not a valid user id, else null. */
export function userIdProblem(id: string): string | null {
  if (id.length === 0) return 'A valid username must be provided';
  if (id.length > 64) return 'Username is too long (at most 64 characters)';
  if (id.trim() !== id) return 'Username contains whitespace at the beginning or at the end';
  if (id === '.' || id === '..') return 'Username must not consist of dots only';
  if (!USER_ID.test(id)) return 'Only the following characters are allowed in a username: "a-z", "A-Z", "0-9", spaces and "_.@-\'"';
  return null;
}

// Matching control characters is the point here (names are shown in clients and logs).
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\x00-\x1f\x7f]/;

export function groupIdProblem(id: string): string | null {
  if (id.trim().length === 0) return 'Invalid group name';
  if (id.length > 64) return 'Group name is too long (at most 64 characters)';
  if (CONTROL_CHARS.test(id)) return 'Group name contains control characters';
  return null;
}

export function emailProblem(email: string): string | null {
  if (email === '') return null;
  if (email.length > 255 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return 'Invalid email address';
  return null;
}

export function displayNameProblem(name: string): string | null {
  if (name.length > 255) return 'Display name is too long (at most 255 characters)';
  if (CONTROL_CHARS.test(name)) return 'Display name contains control characters';
  return null;
}

export function passwordProblem(password: string): string | null {
  if (password.length === 0) return 'Password must not be empty';
  if (password.length > 469) return 'Password is too long';
  return null;
}

/**
 * Keys of `PUT /cloud/users/{userid}` Parley stores (Nextcloud UsersController::editUser):
 * `display` is the legacy alias of `displayname`.
 */
export const EDITABLE_USER_KEYS = ['display', 'displayname', 'email', 'password'] as const;
export type EditableUserKey = (typeof EDITABLE_USER_KEYS)[number];

export function isEditableUserKey(key: string): key is EditableUserKey {
  return (EDITABLE_USER_KEYS as readonly string[]).includes(key);
}

/**
 * Whether a caller may see or edit an account: an admin may act on anyone, a user only on
 * themself (Nextcloud also has sub-admins; Parley does not).
 */
export function mayManageUser(callerId: string, isAdmin: boolean, targetId: string): boolean {
  return isAdmin || callerId === targetId;
}
