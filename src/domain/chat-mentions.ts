/**
 * Mentions in chat text (docs/reference/chat.md#mentions): `@id` or `@"id"`, with
 * the forms `@user`, `@"guest/<id>"`, `@"email/<id>"`, `@"group/<gid>"`, `@"team/<id>"`,
 * `@"federated_user/<user>@<server>"` and `@all`. Pure: finding and replacing; which of them
 * resolve (existing users, attendees, groups) is decided by the caller.
 */

/** A mention as written: its kind and id (without the prefix). */
export interface MentionRef {
  kind: 'user' | 'guest' | 'email' | 'group' | 'team' | 'federated_user' | 'all';
  id: string;
}

// As Nextcloud's comment mention extraction: after start or whitespace; bare ids of
// [a-z0-9_-@.'] or a quoted id that may contain spaces and (with a type prefix) slashes/colons.
const MENTION = /(^|\s)@(?:"((?:guest|email|group|team|federated_user)\/[^"\n]+|[^"\n/]+)"|([\p{L}\p{N}_\-@.']+))/giu;

function refOf(quoted: string | undefined, bare: string | undefined): MentionRef | undefined {
  const raw = quoted ?? bare ?? '';
  // A bare id ends before trailing dots (sentence punctuation), as people write "hi @bob."
  const id = quoted !== undefined ? raw : raw.replace(/\.+$/, '');
  if (id === '') return undefined;
  const slash = id.indexOf('/');
  if (quoted !== undefined && slash > 0) {
    const prefix = id.slice(0, slash);
    const rest = id.slice(slash + 1);
    if (rest === '') return undefined;
    if (prefix === 'guest' || prefix === 'email' || prefix === 'group' || prefix === 'team' || prefix === 'federated_user') {
      return { kind: prefix, id: rest };
    }
  }
  if (id === 'all' || id === 'here') return { kind: 'all', id: 'all' };
  return { kind: 'user', id };
}

/** The mentions in `text`, each once, in order of first appearance. */
export function findMentions(text: string): MentionRef[] {
  const seen = new Set<string>();
  const out: MentionRef[] = [];
  for (const m of text.matchAll(MENTION)) {
    const ref = refOf(m[2], m[3]);
    if (!ref) continue;
    const key = `${ref.kind}\0${ref.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ref);
  }
  return out;
}

/**
 * Replaces resolved mentions by `{placeholder}`s: `resolve` returns the placeholder key of a
 * mention (e.g. `mention-user1`) or undefined to keep the text as written.
 */
export function replaceMentions(text: string, resolve: (ref: MentionRef) => string | undefined): string {
  return text.replace(MENTION, (whole, lead: string, quoted: string | undefined, bare: string | undefined) => {
    const ref = refOf(quoted, bare);
    const key = ref && resolve(ref);
    if (!key) return whole;
    // Trailing dots cut from a bare id stay in the text.
    const tail = bare !== undefined ? bare.slice(bare.replace(/\.+$/, '').length) : '';
    return `${lead}{${key}}${tail}`;
  });
}

/** The users a stored message mentions by name: its `user` rich parameters (none for a message without parameters). */
export function mentionedUserIdsOf(parametersJson: string): Set<string> {
  const out = new Set<string>();
  try {
    for (const p of Object.values(JSON.parse(parametersJson) as Record<string, { type?: string; id?: string }>))
      if (p && p.type === 'user' && typeof p.id === 'string') out.add(p.id);
  } catch {
    // Not JSON: no parameters.
  }
  return out;
}
