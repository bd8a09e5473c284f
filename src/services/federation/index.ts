/**
 * Federation (docs/federation.md): Talk's conversations across servers over Open Cloud Mesh.
 * Built by createServices through `createFederation`; `FederationServices` is what routes,
 * commands and the outbox worker use.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { Settings } from '../../settings.js';
import { federationSwitches, ocmDiscovery } from '../../domain/federation/rules.js';
import type { AppConfigService } from '../platform/app-config.js';
import { FederationClient } from './remote-client.js';
import { FederationTrust } from './trust.js';

export class FederationDiscovery {
  constructor(
    private readonly appConfig: AppConfigService,
    private readonly baseUrl: string,
  ) {}

  /** The OCM discovery document: Talk rooms offered while `federation_enabled`. */
  async document(): Promise<Record<string, unknown>> {
    return ocmDiscovery(this.baseUrl, federationSwitches(await this.appConfig.snapshot()).enabled);
  }
}

export interface FederationServices {
  trust: FederationTrust;
  client: FederationClient;
  discovery: FederationDiscovery;
}

export function createFederation(repos: Repositories, settings: Settings, appConfig: AppConfigService): FederationServices {
  const trust = new FederationTrust(repos.federationTrustedServers, settings.federationAllowInsecure);
  return { trust, client: new FederationClient(trust), discovery: new FederationDiscovery(appConfig, settings.baseUrl) };
}
