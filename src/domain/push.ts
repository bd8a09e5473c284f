/**
 * Push rules of Nextcloud's notifications app (lib/Controller/PushController.php, lib/Push.php;
 * docs/talk-apps.md "Push notifications"), pure: what a registration must look like, which
 * proxies may be used, what a device is (Talk app or not), and the exact bytes of the subject
 * a device decrypts. No I/O.
 */
import { createPublicKey } from 'node:crypto';
import net from 'node:net';

/** Nextcloud's public push proxy: the only one the app-store builds of the Talk apps can use. */
export const NEXTCLOUD_PUSH_PROXY = 'https://push-notifications.nextcloud.com';

/** `pushTokenHash` is the sha512 of the device's push token, in lower-case hex. */
export function isPushTokenHash(value: string): boolean {
  return /^[a-f0-9]{128}$/.test(value);
}

/**
 * The device key as PushController checks it (a PEM public key of RSA 2048: exactly 450 bytes,
 * 451 with a final newline), and one Node can parse as an RSA key of 2048 bits, so encrypting
 * to it later cannot fail.
 */
export function isDevicePublicKey(pem: string): boolean {
  const begin = '-----BEGIN PUBLIC KEY-----\n';
  const end = '\n-----END PUBLIC KEY-----';
  const shaped = pem.startsWith(begin) && ((pem.length === 450 && pem.indexOf(end) === 425) || (pem.length === 451 && pem.indexOf(end + '\n') === 425));
  if (!shaped) return false;
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'rsa' && key.asymmetricKeyDetails?.modulusLength === 2048;
  } catch {
    return false;
  }
}

/** A proxy URL without its trailing slashes (the notifications app posts to `{proxy}/notifications`). */
export function normalizeProxy(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Whether `host` (a URL's hostname) is a loopback address or name. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  return h === '::1';
}

export interface ProxyRules {
  /** Proxies that may be used (normalised). */
  allowed: readonly string[];
  /** PUSH_ALLOW_INSECURE: plain http to a loopback address is accepted (tests). */
  allowInsecure: boolean;
}

/**
 * A proxy a device may name: a URL of at most 256 characters, https (or http to loopback with
 * `allowInsecure`), without credentials, query or fragment, and on the allow-list.
 */
export function isAllowedProxy(value: string, rules: ProxyRules): boolean {
  if (value.length > 256) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.search || url.hash) return false;
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && rules.allowInsecure && isLoopback(url.hostname));
  return secure && rules.allowed.includes(normalizeProxy(url.href));
}

/** The kind of app registering (PushController: Talk apps get Talk's notifications, others the rest). */
export function appTypeOf(userAgent: string): 'talk' | 'nextcloud' | 'unknown' {
  if (/^Mozilla\/5\.0 \(Android\) Nextcloud-Talk v/.test(userAgent) || /^Mozilla\/5\.0 \(iOS\) (?:Nextcloud-Talk|Talk) v/.test(userAgent)) return 'talk';
  if (/^Mozilla\/5\.0 \(Android\) (?:ownCloud|Nextcloud)-android/.test(userAgent) || /^Mozilla\/5\.0 \(iOS\) (?:ownCloud|Nextcloud)-iOS/.test(userAgent)) {
    return 'nextcloud';
  }
  return 'unknown';
}

/** Apps whose notifications go to Talk devices (Push::filterDeviceList). */
export function isTalkApp(app: string): boolean {
  return app === 'spreed' || app === 'talk' || app === 'admin_notification_talk';
}

/**
 * The devices a notification of `app` goes to (Push::filterDeviceList): Talk's to the Talk
 * apps, or the other apps when the user has no Talk app; other apps' to the others only.
 */
export function devicesFor<T extends { app_type: string }>(devices: T[], app: string): T[] {
  const talk = devices.filter((d) => d.app_type === 'talk');
  const other = devices.filter((d) => d.app_type !== 'talk');
  if (!isTalkApp(app)) return other;
  return talk.length ? talk : other;
}

/** PHP's json_encode: `/` escaped, every non-ASCII character as \uXXXX (UTF-16 units). */
export function phpJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\//g, '\\/')
    .replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Nextcloud's Util::shortenMultibyteString: at most `max` characters whose JSON form fits `max` bytes. */
function shorten(subject: string, max: number, accuracy = 5): string {
  let chars = [...subject].slice(0, Math.max(0, max));
  while (chars.length > 0 && phpJson(chars.join('')).length - 2 > max) chars = chars.slice(0, -accuracy);
  return chars.join('');
}

export interface PushSubject {
  nid: number;
  app: string;
  subject: string;
  /** The notification's object type (`chat`, `call`, `room`). */
  type: string;
  /** Its object id. */
  id: string;
}

/**
 * The JSON a device decrypts (Push::encryptAndSign): keys in the notifications app's order, the
 * subject shortened (with an ellipsis) so the whole fits the 2048-bit key's PKCS#1 block.
 */
export function pushSubjectJson(s: PushSubject): string {
  const data = { nid: s.nid, app: s.app, subject: '', type: s.type, id: s.id };
  const max = 200 - phpJson(data).length - 2;
  const short = shorten(s.subject, max);
  data.subject = short === s.subject ? short : short + '…';
  return phpJson(data);
}

/** Priority and type the proxy forwards with (Push::encryptAndSign): Talk's calls ring as VoIP. */
export function pushPriority(app: string, objectType: string): { priority: 'high' | 'normal'; type: 'voip' | 'alert' } {
  if (isTalkApp(app)) return { priority: 'high', type: objectType === 'call' ? 'voip' : 'alert' };
  if (app === 'twofactor_nextcloud_notification' || app === 'phonetrack') return { priority: 'high', type: 'alert' };
  return { priority: 'normal', type: 'alert' };
}

/**
 * The silent deletes for `ids` (all of the user's with null), as Push::encryptAndSignDelete
 * words them: one id `delete`, several `delete-multiple` in groups of ten.
 */
export function deletePayloads(ids: number[] | null): string[] {
  if (ids === null) return [phpJson({ 'delete-all': true })];
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    const part = ids.slice(i, i + 10);
    out.push(part.length === 1 ? phpJson({ nid: part[0], delete: true }) : phpJson({ nids: part, 'delete-multiple': true }));
  }
  return out;
}

/**
 * The form body of `POST {proxy}/notifications` as the notifications app's HTTP client writes
 * it (PHP's http_build_query of `notifications => [...]`): `notifications[0]=…&notifications[1]=…`.
 */
export function proxyFormBody(notifications: string[]): string {
  return notifications.map((n, i) => `${encodeURIComponent(`notifications[${i}]`)}=${encodeURIComponent(n).replace(/%20/g, '+')}`).join('&');
}

/** The cloud id Nextcloud names a user by: `user@host[:port][/path]` of the server's URL. */
export function cloudId(userId: string, baseUrl: string): string {
  return `${userId}@${baseUrl.replace(/^https?:\/\//, '').replace(/\/+$/, '')}`;
}
