/**
 * Capability feature names Parley advertises. A name goes into this list only when the
 * feature it gates works end to end (issue 2: "exactly what Parley implements, never more").
 * Each area adds its names here when it lands, in Talk's order (talk-reference.md §2.2).
 * A feature with a condition is advertised only while the condition holds.
 */
import { signalingMode } from './signaling.js';
import type { AppConfigSnapshot } from '../services/app-config.js';

export interface FeatureDef {
  name: string;
  /** Also listed under `features-local` (reference §2.2). */
  local?: boolean;
  /** When present, the feature is advertised only if this returns true. */
  when?: (cfg: AppConfigSnapshot) => boolean;
}

export const FEATURES: FeatureDef[] = [];

/** Adds feature definitions (called at module load by each area). Idempotent by name. */
export function registerFeatures(defs: FeatureDef[]): void {
  for (const d of defs) if (!FEATURES.some((f) => f.name === d.name)) FEATURES.push(d);
}

export function activeFeatures(cfg: AppConfigSnapshot): { features: string[]; local: string[] } {
  const on = FEATURES.filter((f) => !f.when || f.when(cfg));
  return { features: on.map((f) => f.name), local: on.filter((f) => f.local).map((f) => f.name) };
}

/** Call recording works: external signaling, `call_recording` on and a recording server with a secret. */
export function recordingAvailable(cfg: AppConfigSnapshot): boolean {
  if (signalingMode(cfg) === 'internal' || cfg.get('call_recording') !== 'yes') return false;
  const servers = cfg.json<{ servers?: unknown[]; secret?: string }>('recording_servers', {});
  return Array.isArray(servers?.servers) && servers.servers.length > 0 && !!servers.secret;
}
