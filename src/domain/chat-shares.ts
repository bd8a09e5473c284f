/**
 * Sharing a rich object into a chat (docs/reference/chat.md#shared-objects, "Shared
 * items"): the object a share builds, the checks Nextcloud's rich-object validator makes, and the
 * kind of shared item it is listed as.
 */

/** The kinds a share is stored as (table chat_shared_items), in Talk's order (docs/reference/chat.md#shared-items). */
export const SHARED_ITEM_TYPES = ['audio', 'deckcard', 'file', 'location', 'media', 'other', 'poll', 'recording', 'voice'] as const;
export type SharedItemType = (typeof SHARED_ITEM_TYPES)[number];

export const isSharedItemType = (t: string): t is SharedItemType => (SHARED_ITEM_TYPES as readonly string[]).includes(t);

/** The kind of the pinned messages, listed from the messages' pins (migration 0719) rather than stored as shares. */
export const PINNED_ITEMS = 'pinned';

/** Every kind the shared-items lists know, in Talk's order, which is alphabetical (the overview's keys). */
export const LISTED_ITEM_TYPES: readonly string[] = [...SHARED_ITEM_TYPES, PINNED_ITEMS].sort();

/** The kind a shared object is listed as (docs/reference/chat.md#shared-items: classification on share). */
export function sharedItemTypeOf(objectType: string): SharedItemType {
  if (objectType === 'geo-location') return 'location';
  if (objectType === 'deck-card') return 'deckcard';
  if (objectType === 'talk-poll') return 'poll';
  return 'other';
}

/**
 * The object types Nextcloud's rich-object definitions know, with the keys each requires besides
 * `id` and `name` (OCP\RichObjectStrings\Definitions): any other type is refused.
 */
const REQUIRED_KEYS: Readonly<Record<string, readonly string[]>> = {
  addressbook: [],
  'addressbook-contact': [],
  announcement: [],
  app: [],
  calendar: [],
  'calendar-event': [],
  call: ['call-type'],
  circle: ['link'],
  'deck-board': ['link'],
  'deck-card': ['boardname', 'stackname', 'link'],
  email: [],
  file: ['path'],
  'forms-form': ['link'],
  guest: [],
  highlight: [],
  'geo-location': ['latitude', 'longitude'],
  'open-graph': [],
  'pending-federated-share': [],
  systemtag: ['visibility', 'assignable'],
  'talk-attachment': ['conversation'],
  'talk-poll': [],
  user: [],
  'user-group': [],
};

/** A geo URI as Talk accepts it for `geo-location` (docs/reference/chat.md#other-operations: `geo:<lat>,<lon>[,<alt>][;crs=wgs84][;u=<unc>]`). */
const GEO_URI = /^geo:-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?(,-?\d+(\.\d+)?)?(;crs=wgs84)?(;u=\d+(\.\d+)?)?$/i;

/** A shared object as a message carries it: string values only, `type` among them (docs/reference/chat.md#rich-objects "object"). */
export type SharedObject = { type: string } & Record<string, string>;

/** Why a share is refused: `object` (the validator) or `link` (not on this server). */
export type ShareRefusal = 'object' | 'link';

/**
 * The object a share posts: `metaData` (a JSON object, else nothing) with `type`, `id` and
 * `icon-url` set by the server, as Talk's shareObjectToChat builds it. Refused when Nextcloud's
 * validator would refuse it (unknown type, a required key missing, a value that is not a string),
 * a `geo-location` whose id is not a geo URI, or a `link` that is not on `ownOrigin`.
 */
export function buildSharedObject(
  objectType: string,
  objectId: string,
  metaData: string,
  iconUrl: string,
  ownOrigin: string,
): { object: SharedObject } | { refused: ShareRefusal } {
  let data: Record<string, unknown> = {};
  if (metaData !== '') {
    try {
      const parsed: unknown = JSON.parse(metaData);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
    } catch {
      // Talk's json_decode gives null for bad JSON: the object is built without metadata.
    }
  }
  data = { ...data, type: objectType, id: objectId, 'icon-url': iconUrl };
  if (Object.hasOwn(data, 'link') && !(typeof data.link === 'string' && onOrigin(data.link, ownOrigin))) return { refused: 'link' };
  // Own keys only: `constructor` or `__proto__` must not find Object's built-ins.
  const required = Object.hasOwn(REQUIRED_KEYS, objectType) ? REQUIRED_KEYS[objectType] : undefined;
  if (!required || ![...required, 'id', 'name'].every((k) => Object.hasOwn(data, k))) return { refused: 'object' };
  if (!Object.values(data).every((v) => typeof v === 'string')) return { refused: 'object' };
  if (objectType === 'geo-location' && !GEO_URI.test(objectId)) return { refused: 'object' };
  return { object: data as SharedObject };
}

/** Whether `link` points at this server (Talk accepts only its trusted domains). */
function onOrigin(link: string, ownOrigin: string): boolean {
  try {
    return new URL(link).origin === new URL(ownOrigin).origin;
  } catch {
    return false;
  }
}

/** The poll a shared-object message posted (its `object` parameter a talk-poll), if any. */
export function sharedPollId(messageParameters: string): number | undefined {
  return talkPollId((JSON.parse(messageParameters) as { object?: unknown }).object);
}

/** The poll a `poll_closed` system message names (its `poll` parameter, docs/reference/chat.md#system-messages), if any. */
export function closedPollId(messageParameters: string): number | undefined {
  return talkPollId((JSON.parse(messageParameters) as { poll?: unknown }).poll);
}

/** The id of a talk-poll rich object (`{type: 'talk-poll', id: '<digits>'}`), if it is one. */
function talkPollId(object: unknown): number | undefined {
  const o = object as { type?: unknown; id?: unknown } | undefined;
  return o?.type === 'talk-poll' && typeof o.id === 'string' && /^\d+$/.test(o.id) ? Number(o.id) : undefined;
}
