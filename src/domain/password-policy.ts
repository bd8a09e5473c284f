/**
 * Parley's password policy for conversation passwords (contract "Set password": a violation is
 * 400 with a readable `data.message`; docs/reference/conversations.md#endpoint-rules PUT password). Nextcloud delegates to
 * its password_policy app, whose main rule is a minimum length; Parley keeps that rule, with the
 * minimum in app config `password_policy_min_length` (default 10).
 */

/** Longest password accepted (a bound on input, far above any sane minimum; min is at most 1024). */
export const PASSWORD_MAX_LENGTH = 4096;

/**
 * The violated rule as a message to show to the user, or undefined when the password passes.
 * Lengths count characters (code points), not bytes.
 */
export function passwordPolicyViolation(password: string, minLength: number): string | undefined {
  const length = [...password].length;
  if (length < minLength) return `Password needs to be at least ${minLength} ${minLength === 1 ? 'character' : 'characters'} long.`;
  if (length > PASSWORD_MAX_LENGTH) return `Password can be at most ${PASSWORD_MAX_LENGTH} characters long.`;
  return undefined;
}
