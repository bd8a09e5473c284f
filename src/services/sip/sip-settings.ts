/**
 * `POST /settings/sip` (contract "Settings", docs/reference/sip.md#sip-settings): the three SIP bridge
 * settings are written together through the app-config registry, in one transaction and one
 * cache-generation bump, so every process (and the X-Service-Hash) sees them at once.
 */
import { ConfigValueError, findConfigKey, normalizeConfigValue } from '../../app-config/registry.js';
import type { GroupsRepository } from '../../db/repositories/groups.js';
import { badRequest } from '../../domain/errors.js';
import type { AppConfigService } from '../platform/app-config.js';

export interface SipSettingsInput {
  sipGroups: string[];
  dialInInfo: string;
  sharedSecret: string;
}

export class SipSettingsService {
  constructor(
    private readonly appConfig: AppConfigService,
    private readonly groups: GroupsRepository,
  ) {}

  /** Validates all three values, drops unknown group ids silently (as Talk does), then stores. */
  async save(input: SipSettingsInput): Promise<void> {
    const dialInInfo = this.normalize('sip_bridge_dialin_info', input.dialInInfo, 'dialInInfo');
    const sharedSecret = this.normalize('sip_bridge_shared_secret', input.sharedSecret, 'sharedSecret');
    const wanted = [...new Set(input.sipGroups)];
    const known = new Set((await this.groups.existing(wanted)).map((g) => g.id));
    const sipGroups = wanted.filter((g) => known.has(g));
    await this.appConfig.setMany([
      { key: 'sip_bridge_groups', value: JSON.stringify(sipGroups) },
      { key: 'sip_bridge_dialin_info', value: dialInInfo },
      { key: 'sip_bridge_shared_secret', value: sharedSecret },
    ]);
  }

  /** Registry validation (length limits), reported under the request field's name. */
  private normalize(key: string, value: string, field: string): string {
    try {
      return normalizeConfigValue(findConfigKey(key)!, value);
    } catch (e) {
      if (e instanceof ConfigValueError) throw badRequest(field, `${field} ${e.message}`);
      throw e;
    }
  }
}
