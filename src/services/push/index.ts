/**
 * The push area (docs/talk-apps.md "Push notifications"): device registration for the push
 * proxy, the account keys, delivery through the outbox, the proxies' reachability, and Web Push.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { Logger } from '../../log.js';
import type { Settings } from '../../settings.js';
import type { NotificationService } from '../notifications.js';
import type { UserStatusService } from '../user-status.js';
import { PushKeys } from './keys.js';
import { ProxyDelivery, PushCounters } from './proxy-delivery.js';
import { PushRegistrationService } from './registration.js';

export interface PushServices {
  keys: PushKeys;
  registration: PushRegistrationService;
  /** The outbox handler of topic `push`. */
  proxyDelivery: ProxyDelivery;
  /** Counters of /metrics: pushes sent, failed, dropped. */
  counters: PushCounters;
}

export function createPush(
  repos: Repositories,
  settings: Settings,
  notifications: NotificationService,
  userStatus: UserStatusService,
  log: Logger,
): PushServices {
  const keys = new PushKeys(repos.pushDevices);
  const rules = { allowed: settings.pushProxies, allowInsecure: settings.pushAllowInsecure };
  const counters = new PushCounters();
  return {
    keys,
    counters,
    registration: new PushRegistrationService(repos.pushDevices, keys, rules, settings.baseUrl),
    proxyDelivery: new ProxyDelivery(repos.pushDevices, keys, notifications, userStatus, repos.userRateLimits, counters, settings.baseUrl, log),
  };
}
