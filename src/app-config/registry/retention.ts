/** Retention and clean-up: how long rows and files are kept. Joined into CONFIG_KEYS by src/app-config/registry.ts. */
import { k, SECTION as S, type ConfigKey } from './define.js';

export const RETENTION_KEYS = [
  k({
    key: 'retention_event_rooms',
    type: 'int',
    default: '28',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'retention of event conversations in days, 0 = none',
  }),
  k({
    key: 'retention_phone_rooms',
    type: 'int',
    default: '7',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'retention of phone conversations in days, 0 = none',
  }),
  k({
    key: 'retention_instant_meetings',
    type: 'int',
    default: '1',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'retention of instant meetings in days, 0 = none',
  }),
  k({
    key: 'retention_classified_rooms',
    type: 'int',
    default: '3600',
    min: 0,
    max: 2_147_483_647,
    section: S.retention,
    description: 'retention of classified conversations in seconds after a call, 0 = none',
  }),
  k({
    key: 'inactivity_lock_after_days',
    type: 'int',
    default: '0',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'days after which idle conversations are locked, 0 = never',
  }),
  k({
    key: 'inactivity_enable_lobby',
    type: 'bool',
    default: '0',
    boolStyle: '10',
    section: S.retention,
    description: 'also enable the lobby on inactive conversations',
  }),
] as const satisfies readonly ConfigKey[];
