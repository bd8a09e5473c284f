/** Paths and schemas that many route files share (one definition each). */
import { Type } from '@sinclair/typebox';

/** Talk's API v4 base (under /ocs/v2.php and /ocs/v1.php). */
export const V4 = '/apps/spreed/api/v4';
/** A conversation by token. */
export const ROOM = `${V4}/room/:token`;
/** A conversation token as a path parameter (format checked by the service: malformed is 404). */
export const Token = Type.String();
/** PHP's empty array: `data` is always `[]`. */
export const EmptyList = Type.Array(Type.Never(), { maxItems: 0, description: 'always []' });
/** `data` is always null. */
export const NullData = Type.Null();
