/**
 * A test SIP bridge: signs requests exactly as a real bridge does (docs/reference/sip.md#bridge-signature):
 * `Talk-SIPBridge-Random` (≥ 32 characters) and `Talk-SIPBridge-Checksum` = lower-case hex
 * HMAC-SHA256(shared secret, random + conversation token). Also sets SIP up as an admin would.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { admin, call, type Parley } from './parley.js';

export function bridgeHeaders(secret: string, token: string, random = randomBytes(32).toString('hex')): Record<string, string> {
  const checksum = createHmac('sha256', secret)
    .update(random + token)
    .digest('hex');
  return { 'Talk-SIPBridge-Random': random, 'Talk-SIPBridge-Checksum': checksum };
}

/** POST /settings/sip as the admin (asserts 200); an empty `secret` turns SIP off. */
export async function configureSip(p: Parley, secret: string, groups: string[] = ['sip']): Promise<void> {
  const r = await call(p, 'POST', '/apps/spreed/api/v1/settings/sip', {
    as: admin,
    body: { sipGroups: groups, dialInInfo: 'Dial +49 30 123456', sharedSecret: secret },
  });
  assert.equal(r.status, 200, r.text);
}
