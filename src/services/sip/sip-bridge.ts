/**
 * Authenticating the SIP bridge (contract "Authentication" 5; docs/reference/sip.md#bridge-signature,
 * docs/reference/sip.md#bridge-signature). The bridge signs each request with headers
 * `Talk-SIPBridge-Random` and `Talk-SIPBridge-Checksum` = hex HMAC-SHA256(shared secret,
 * random + conversation token). A wrong or missing signature is 401 and counts as a
 * `talkSipBridgeSecret` brute-force failure (429 once the cap is reached).
 */
import { unauthorized } from '../../domain/errors.js';
import { sipBridgeSignatureValid } from '../../domain/sip.js';
import type { BruteForceService } from '../accounts/brute-force.js';
import type { RequestContext } from '../platform/request-context.js';

export const SIP_BRIDGE_RANDOM_HEADER = 'talk-sipbridge-random';
export const SIP_BRIDGE_CHECKSUM_HEADER = 'talk-sipbridge-checksum';

/** A header as one string ('' when missing; a repeated header is never a valid signature). */
function header(ctx: RequestContext, name: string): string | undefined {
  const v = ctx.headers[name];
  if (v === undefined) return '';
  return typeof v === 'string' ? v : undefined;
}

export class SipBridgeService {
  constructor(private readonly bruteForce: BruteForceService) {}

  /**
   * For endpoints any client may call (GET /room/{token}): false when the request carries no
   * bridge headers; true when it is a valid bridge request for `token`; 401 when the headers are
   * present but wrong.
   */
  async detect(ctx: RequestContext, token: string): Promise<boolean> {
    if (!this.carriesSignature(ctx)) return false;
    await this.require(ctx, token);
    return true;
  }

  /** Whether the request carries the bridge's headers (checked or not): a bridge request, or a bad one. */
  carriesSignature(ctx: RequestContext): boolean {
    return header(ctx, SIP_BRIDGE_RANDOM_HEADER) !== '' || header(ctx, SIP_BRIDGE_CHECKSUM_HEADER) !== '';
  }

  /** For bridge-only endpoints: anything but a valid signature for `token` is 401. */
  async require(ctx: RequestContext, token: string): Promise<void> {
    // The signature is an HMAC under a random secret (nothing to guess in any number of tries):
    // the cap is checked first, and a bad signature is one atomically counted failure.
    await this.bruteForce.assertBelowCap(ctx.ip, 'talkSipBridgeSecret');
    const cfg = await ctx.config();
    const random = header(ctx, SIP_BRIDGE_RANDOM_HEADER);
    const checksum = header(ctx, SIP_BRIDGE_CHECKSUM_HEADER);
    const ok = random !== undefined && checksum !== undefined && sipBridgeSignatureValid(cfg.get('sip_bridge_shared_secret'), random, checksum, token);
    if (!ok) {
      await this.bruteForce.failure(ctx.ip, 'talkSipBridgeSecret');
      throw unauthorized('sip-bridge');
    }
  }
}
