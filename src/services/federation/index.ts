/**
 * Federation (docs/federation.md): Talk's conversations across servers over Open Cloud Mesh.
 * Built by createServices through `createFederation`; `FederationServices` is what routes,
 * commands, subscribers and the outbox worker use.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { Settings } from '../../settings.js';
import { federationSwitches, ocmDiscovery } from '../../domain/federation/rules.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { NotificationService } from '../notifications/notifications.js';
import type { BruteForceService } from '../accounts/brute-force.js';
import type { OutboxSignal } from '../outbox/signal.js';
import { FederationClient } from './remote-client.js';
import { FederationTrust } from './trust.js';
import { FederationHost } from './host.js';
import { FederationInvitations } from './invitations.js';
import { FederationDelivery, type DeliveryLogger } from './delivery.js';
import { OcmInbox } from './ocm-inbox.js';
import { FederationProxy } from './proxy.js';
import { FederationSync } from './sync.js';

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
  /** The host's side: inviting, SHARE_ACCEPTED / SHARE_DECLINED, removals owed to remotes. */
  host: FederationHost;
  /** The invited side: received shares, the user's invitations. */
  invitations: FederationInvitations;
  /** `/ocm/shares` and `/ocm/notifications`. */
  inbox: OcmInbox;
  /** The outbox handler of topic `federation`. */
  delivery: FederationDelivery;
  /** Proxied conversations: requests of users here forwarded to the host. */
  proxy: FederationProxy;
  /** Proxied conversations kept current: the host's MESSAGE_POSTED. */
  sync: FederationSync;
}

export interface FederationDeps {
  rooms: RoomsService;
  directory: DirectoryService;
  notifications: NotificationService;
  bruteForce: BruteForceService;
  signal: OutboxSignal;
  log: DeliveryLogger;
}

export function createFederation(repos: Repositories, settings: Settings, appConfig: AppConfigService, deps: FederationDeps): FederationServices {
  const trust = new FederationTrust(repos.federationTrustedServers, settings.federationAllowInsecure);
  const client = new FederationClient(trust);
  const host = new FederationHost(deps.rooms, repos, trust, deps.directory, deps.signal, settings.baseUrl);
  const proxy = new FederationProxy(repos, client, settings.baseUrl, deps.rooms);
  const invitations = new FederationInvitations(
    repos,
    deps.rooms,
    appConfig,
    deps.directory,
    deps.notifications,
    trust,
    client,
    deps.signal,
    settings.baseUrl,
    host.ownServerUrl,
    proxy,
  );
  const sync = new FederationSync(repos, deps.rooms, appConfig, deps.notifications, proxy, client, settings.baseUrl);
  return {
    trust,
    client,
    discovery: new FederationDiscovery(appConfig, settings.baseUrl),
    host,
    invitations,
    inbox: new OcmInbox(appConfig, deps.bruteForce, host, invitations, sync),
    delivery: new FederationDelivery(client, (id) => host.shareRefused(id), deps.log, host.ownServerUrl),
    proxy,
    sync,
  };
}
