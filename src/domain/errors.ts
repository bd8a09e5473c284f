/**
 * The one error catalog. Services throw these; the OCS layer turns them into the
 * envelope (status, meta.message, data). A 500 is always a bug, never an answer to input.
 *
 * Conventions (docs/reference/envelope-and-errors.md#framework-errors, docs/reference/envelope-and-errors.md#error-bodies): Talk puts a machine reason in
 * `data.error`; Parley does so for every 4xx it produces so clients and people can tell
 * causes apart. 404s for conversations carry the same body whether the conversation does
 * not exist or the caller may not see it.
 */

import { ROOM_NAME_MAX } from './constants.js';

export type ErrorData = Record<string, unknown> | unknown[] | null;

export class ApiError extends Error {
  constructor(
    /** HTTP status (v2) / controller status (v1). */
    readonly status: number,
    /** The OCS `data` payload. */
    readonly data: ErrorData = [],
    /** `meta.message`; empty as in Talk's middleware unless the framework sets one. */
    readonly ocsMessage = '',
    /** Special OCS status code (997 not logged in) when it differs from `status`. */
    readonly ocsCode?: number,
    /** Extra response headers. */
    readonly headers?: Record<string, string>,
  ) {
    super(ocsMessage || `${status} ${JSON.stringify(data)}`);
  }
}

function reason(error: string, message?: string): Record<string, string> {
  return message ? { error, message } : { error };
}

/** 400 with `{error: reason}` (and a human message when one helps). */
export const badRequest = (error: string, message?: string) => new ApiError(400, reason(error, message));

/** 400 for a request field with the wrong type, a missing required value or an unknown enum value. */
export const invalidField = (field: string, message: string) => new ApiError(400, reason(field, message));

/** 401: no or wrong credentials (OCS 997, as Nextcloud's framework answers). */
export const notLoggedIn = () => new ApiError(401, [], 'Current user is not logged in', 997);

/** 401 with a reason, for Talk endpoints that refuse guests or failed SIP-bridge checks. */
export const unauthorized = (error: string) => new ApiError(401, reason(error));

/** 403 for admin-only routes. */
export const adminRequired = () => new ApiError(403, reason('admin'), 'Logged in account must be an admin');

/** 403 with a reason (not a moderator, owner protected, password wrong, ...). */
export const forbidden = (error: string, message?: string) => new ApiError(403, reason(error, message));

/** 400: a conversation name breaking the rule of domain/room-name.ts (one message everywhere). */
export const invalidRoomName = (field = 'name') => badRequest(field, `Invalid room name: it must be 1 to ${ROOM_NAME_MAX} characters`);

/** 404 with a reason; conversations always use `notFound('room')` whatever the cause. */
export const notFound = (error: string, message?: string) => new ApiError(404, reason(error, message));

/** 409 with the payload the contract gives (join conflict). */
export const conflict = (data: Record<string, unknown>) => new ApiError(409, data);

/** 412: lobby active for a non-moderator. */
export const lobbyActive = () => new ApiError(412, reason('lobby'));

/** 412 with a reason (configuration precondition). */
export const preconditionFailed = (error: string) => new ApiError(412, reason(error));

/** 429: brute-force cap reached. */
export const tooManyRequests = () => new ApiError(429, reason('throttled', 'Too many attempts, try again later'), 'Reached maximum delay');

/** 429 with a reason: a rate limit of an action (not the brute-force cap) was reached. */
export const rateLimited = (error: string, message: string) => new ApiError(429, reason(error, message));

/** 405 with a reason (a WebDAV method that does not apply to the resource, e.g. MKCOL on a file). */
export const methodNotAllowed = (error: string, message?: string) => new ApiError(405, reason(error, message));

/** 507 Insufficient Storage: a user's quota would be exceeded (as Nextcloud's WebDAV answers). */
export const insufficientStorage = (error: string, message?: string) => new ApiError(507, reason(error, message));

/** 501: SIP or dial-out not configured. */
export const notImplemented = (error: string) => new ApiError(501, reason(error));

/**
 * 503: the server sheds load (http/load-shedding.ts) and asks to come back after `retryAfterSeconds`
 * (RFC 9110 §10.2.3), so a client backs off instead of adding to the queue.
 */
export const overloaded = (retryAfterSeconds: number) =>
  new ApiError(503, reason('overloaded', 'The server is busy, try again later'), 'Service unavailable', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/** 413: body too large. */
export const payloadTooLarge = (error: string, message?: string) => new ApiError(413, reason(error, message));

/**
 * Nextcloud provisioning API failure with its numbered OCS code (101 invalid input, 102 exists,
 * 103/104 unknown, ...): v2 answers HTTP 400 with that statuscode, v1 HTTP 200 with it.
 */
export const ocsFailure = (code: number, error: string, message: string) => new ApiError(code, reason(error, message), message);

/**
 * Nextcloud's `RESPOND_UNAUTHORISED` (997) thrown by a controller for a refused input (the
 * provisioning API's unknown group key): HTTP 401 on v1 and v2, `meta.message` empty.
 */
export const ocsUnauthorised = (error: string, message: string) => new ApiError(401, reason(error, message), '', 997);

/** Nextcloud's `RESPOND_NOT_FOUND` (998): HTTP 404 on v2, statuscode 998 with HTTP 200 on v1. */
export const ocsNotFound = (error: string, message = '') => new ApiError(404, reason(error, message || undefined), message, 998);

/** A files_sharing API refusal as Nextcloud's OCS exceptions give it: the message in `meta.message` too. */
export const shareFailure = (status: 400 | 403 | 404, error: string, message: string) => new ApiError(status, reason(error, message), message);
/**
 * An Open Cloud Mesh refusal (`/ocm/shares`, `/ocm/notifications`): plain JSON `{message}` (with
 * `validationErrors` for malformed fields), as Nextcloud's cloud federation API answers
 * (docs/reference/federation.md#notifications).
 */
export const ocmRefused = (status: number, message: string, validationErrors?: Array<{ name: string; message: string }>) =>
  new ApiError(status, validationErrors ? { message, validationErrors } : { message });

/** 410 with `{error}`: what the request needs is gone or cannot be reached (a federated host that does not answer). */
export const gone = (error: string, message?: string) => new ApiError(410, reason(error, message));

/** 422 `remote`: the host of a proxied conversation could not be reached or answered nothing usable. */
export const remoteUnreachable = () => new ApiError(422, reason('remote', 'The server of the conversation could not be reached'));

/**
 * 406 `federation`: the endpoint does not work on a conversation kept here for a host elsewhere
 * (Talk's answer for endpoints without federation support; docs/federation.md#the-proxied-conversation).
 */
export const federationUnsupported = () => new ApiError(406, reason('federation', 'This is not supported in federated conversations'));

/**
 * A refusal of the host of a proxied conversation, passed on as it came (its status and `data`),
 * as Talk's proxy does (docs/reference/federation.md#proxied-requests).
 */
export const proxiedRefusal = (status: number, data: unknown) => new ApiError(status, typeof data === 'object' && data !== null ? (data as ErrorData) : []);
