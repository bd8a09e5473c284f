/**
 * A test SIP bridge: signs requests exactly as a real bridge does (talk-reference.md §3.7):
 * `Talk-SIPBridge-Random` (≥ 32 characters) and `Talk-SIPBridge-Checksum` = lower-case hex
 * HMAC-SHA256(shared secret, random + conversation token).
 */
import { createHmac, randomBytes } from 'node:crypto';

export function bridgeHeaders(secret: string, token: string, random = randomBytes(32).toString('hex')): Record<string, string> {
  const checksum = createHmac('sha256', secret).update(random + token).digest('hex');
  return { 'Talk-SIPBridge-Random': random, 'Talk-SIPBridge-Checksum': checksum };
}
