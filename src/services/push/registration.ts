/**
 * Device registration for the push proxy, as the notifications app's PushController does it
 * (`POST`/`DELETE /ocs/v2.php/apps/notifications/api/v2/push`; docs/talk-apps.md "Push
 * notifications"). Only a request signed with an app password may register (the registration
 * is that app password's and dies with it); a login password answers 400 INVALID_SESSION_TOKEN.
 */
import { createHash, sign } from 'node:crypto';
import type { PushDevicesRepository } from '../../db/repositories/push-devices.js';
import { badRequest } from '../../domain/errors.js';
import { appTypeOf, cloudId, isAllowedProxy, isDevicePublicKey, isPushTokenHash, normalizeProxy, phpJson, type ProxyRules } from '../../domain/push.js';
import { nowSeconds } from '../../domain/time.js';
import type { RequestContext } from '../platform/request-context.js';
import type { PushKeys } from './keys.js';

export interface PushRegistration {
  /** 201 new or changed, 200 unchanged. */
  status: 200 | 201;
  /** The account's public key, the device identifier and its signature, for the proxy. */
  data: { publicKey: string; deviceIdentifier: string; signature: string };
}

export class PushRegistrationService {
  constructor(
    private readonly repo: PushDevicesRepository,
    private readonly keys: PushKeys,
    private readonly rules: ProxyRules,
    /** The server's URL, part of the user's cloud id in the device identifier. */
    private readonly baseUrl: string,
  ) {}

  /** Registers the caller's device; checks in PushController's order, each a 400 with its `message`. */
  async register(ctx: RequestContext, pushTokenHash: string, devicePublicKey: string, proxyServer: string, userAgent: string): Promise<PushRegistration> {
    if (!isPushTokenHash(pushTokenHash)) throw badRequest('pushTokenHash', 'INVALID_PUSHTOKEN_HASH');
    if (!isDevicePublicKey(devicePublicKey)) throw badRequest('devicePublicKey', 'INVALID_DEVICE_KEY');
    if (!isAllowedProxy(proxyServer, this.rules)) throw badRequest('proxyServer', 'INVALID_PROXY_SERVER');
    const appPasswordId = sessionToken(ctx);
    const userId = ctx.userId!;
    const key = await this.keys.of(userId);
    // The notifications app signs the JSON [cloud id, token id] and hands out its sha512 as the
    // identifier: the proxy verifies the signature over the identifier's preimage.
    const identity = phpJson([cloudId(userId, this.baseUrl), appPasswordId]);
    const signature = sign('sha512', Buffer.from(identity), key.private_key).toString('base64');
    const deviceIdentifier = createHash('sha512').update(identity).digest('base64');
    const outcome = await this.repo.register({
      user_id: userId,
      app_password_id: appPasswordId,
      device_identifier: deviceIdentifier,
      device_public_key: devicePublicKey,
      device_public_key_hash: createHash('sha512').update(devicePublicKey).digest('hex'),
      push_token_hash: pushTokenHash,
      proxy_server: normalizeProxy(proxyServer),
      app_type: appTypeOf(userAgent),
      created_at: nowSeconds(),
    });
    return { status: outcome === 'unchanged' ? 200 : 201, data: { publicKey: key.public_key, deviceIdentifier, signature } };
  }

  /** Unregisters the caller's device: whether there was one (202) or not (200). */
  async unregister(ctx: RequestContext): Promise<boolean> {
    return this.repo.remove(ctx.userId!, sessionToken(ctx));
  }
}

/** The app password the request was signed with; a login password has none (PushController: INVALID_SESSION_TOKEN). */
export function sessionToken(ctx: RequestContext): number {
  if (ctx.appPasswordId === undefined) throw badRequest('session', 'INVALID_SESSION_TOKEN');
  return ctx.appPasswordId;
}
