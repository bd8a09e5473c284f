/** Internal keys: generated secrets and state, not shown on the admin page. Joined into CONFIG_KEYS by src/app-config/registry.ts. */
import { k, SECTION as S, type ConfigKey } from './define.js';

export const INTERNAL_KEYS = [
  k({
    key: 'signaling_ticket_secret',
    type: 'string',
    hash: true,
    secret: true,
    maxLength: 1024,
    section: S.internal,
    description: 'secret securing signaling tickets of guests',
  }),
  k({
    key: 'signaling_token_alg',
    type: 'string',
    default: 'ES256',
    hash: true,
    enum: ['ES256', 'ES384', 'RS256', 'RS384', 'RS512', 'EdDSA'],
    section: S.internal,
    description: 'algorithm of signaling tickets',
  }),
  k({
    key: 'signaling_token_privkey_',
    prefix: true,
    type: 'string',
    hash: true,
    secret: true,
    maxLength: 16384,
    section: S.internal,
    description: 'private key for signaling ticket creation (suffix = algorithm)',
  }),
  k({
    key: 'signaling_token_pubkey_',
    prefix: true,
    type: 'string',
    hash: true,
    maxLength: 16384,
    section: S.internal,
    description: 'public key for signaling ticket creation (suffix = algorithm)',
  }),
  k({
    key: 'hosted-signaling-server-nonce',
    type: 'string',
    secret: true,
    maxLength: 1024,
    section: S.internal,
    description: 'temporary nonce while configuring the hosted signaling server',
  }),
  k({
    key: 'hosted-signaling-server-account-id',
    type: 'string',
    maxLength: 255,
    section: S.internal,
    description: 'account identifier of the hosted signaling server',
  }),
  k({ key: 'samples_directory', type: 'string', maxLength: 4096, section: S.internal, description: 'readable directory with sample conversation data' }),
] as const satisfies readonly ConfigKey[];
