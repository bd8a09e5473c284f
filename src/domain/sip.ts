/**
 * Pure SIP rules (talk-behaviour.md §1 "Attendee PIN", §5 canEnableSIP, §12; talk-reference.md
 * §1.12). "SIP configured" means the bridge's shared secret and the dial-in info are both set;
 * "dial-out enabled" additionally needs app config `sip_dialout` != `no`.
 */
import type { AppConfigSnapshot } from '../services/app-config.js';

/** "SIP configured": shared secret and dial-in info both non-empty. */
export function sipConfigured(cfg: AppConfigSnapshot): boolean {
  return cfg.get('sip_bridge_shared_secret') !== '' && cfg.get('sip_bridge_dialin_info') !== '';
}

/** SIP dial-out works: SIP configured and `sip_dialout` is not `no`. */
export function dialOutEnabled(cfg: AppConfigSnapshot): boolean {
  return sipConfigured(cfg) && cfg.get('sip_dialout') !== 'no';
}
