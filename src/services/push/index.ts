/**
 * The push area (docs/talk-apps.md "Push notifications"): device registration for the push
 * proxy, the account keys, delivery through the outbox, and Web Push.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { Settings } from '../../settings.js';
import { PushKeys } from './keys.js';
import { PushRegistrationService } from './registration.js';

export interface PushServices {
  keys: PushKeys;
  registration: PushRegistrationService;
}

export function createPush(repos: Repositories, settings: Settings): PushServices {
  const keys = new PushKeys(repos.pushDevices);
  const rules = { allowed: settings.pushProxies, allowInsecure: settings.pushAllowInsecure };
  return { keys, registration: new PushRegistrationService(repos.pushDevices, keys, rules, settings.baseUrl) };
}
