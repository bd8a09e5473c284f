/**
 * The push area (docs/talk-apps.md "Push notifications"): device registration for the push
 * proxy, the account keys, delivery through the outbox, the proxies' reachability, and Web Push.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { Logger } from '../../log.js';
import type { Settings } from '../../settings.js';
import type { NotificationService } from '../notifications/notifications.js';
import type { UserStatusService } from '../accounts/user-status.js';
import { PushKeys } from './keys.js';
import { ProxyDelivery, PushCounters } from './proxy-delivery.js';
import { PushRegistrationService } from './registration.js';
import { WebPushService } from './web-push.js';
import { checkPushProxies, type ProxyReachability } from './reachability.js';
import type { OutboxSignal } from '../outbox/signal.js';

export interface PushServices {
  keys: PushKeys;
  registration: PushRegistrationService;
  /** The outbox handler of topic `push`. */
  proxyDelivery: ProxyDelivery;
  /** Web Push: VAPID key, subscriptions, and the outbox handler of topic `webpush`. */
  webPush: WebPushService;
  /** Counters of /metrics: pushes sent, failed, dropped. */
  counters: PushCounters;
  /** Whether each allowed push proxy (PUSH_PROXIES) answers: for operators' health checks. */
  checkProxies(timeoutMs?: number): Promise<ProxyReachability[]>;
}

export function createPush(
  repos: Repositories,
  settings: Settings,
  notifications: NotificationService,
  userStatus: UserStatusService,
  signal: OutboxSignal,
  log: Logger,
): PushServices {
  const keys = new PushKeys(repos.pushDevices);
  const rules = { allowed: settings.pushProxies, allowInsecure: settings.pushAllowInsecure };
  const counters = new PushCounters();
  return {
    keys,
    counters,
    checkProxies: (timeoutMs) => checkPushProxies(settings.pushProxies, timeoutMs),
    registration: new PushRegistrationService(repos.pushDevices, keys, rules, settings.baseUrl),
    webPush: new WebPushService(
      repos.webpushSubscriptions,
      notifications,
      userStatus,
      counters,
      signal,
      { enabled: settings.webPush, allowInsecure: settings.pushAllowInsecure, contact: `mailto:${settings.mailFrom}`, baseUrl: settings.baseUrl },
      log,
    ),
    proxyDelivery: new ProxyDelivery(repos.pushDevices, keys, notifications, userStatus, repos.userRateLimits, counters, settings.baseUrl, log),
  };
}
