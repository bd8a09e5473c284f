/** The tables of what Parley owes other servers: the outbox, its leases, push keys, devices and subscriptions (docs/architecture.md#the-outbox), part of `Database` (schema.ts). */
import type { Generated } from 'kysely';

/** What Parley owes another server (migration 0820): claimed, sent, retried by the outbox worker. */
export interface OutboxTable {
  id: Generated<number>;
  topic: string;
  destination: string;
  dedupe_key: string | null;
  payload: string;
  attempts: Generated<number>;
  /** Milliseconds. */
  due_at: Generated<number>;
  claimed_by: string | null;
  /** Milliseconds. */
  claimed_until: Generated<number>;
  created_at: number;
}

/** A destination of an ordered outbox topic being delivered by one process (migration 0880). */
export interface OutboxLeasesTable {
  topic: string;
  destination: string;
  claimed_by: string;
  /** Milliseconds. */
  claimed_until: number;
}

/** A user's push key pair (migration 0821; Nextcloud's identity proof key). */
export interface PushKeysTable {
  user_id: string;
  public_key: string;
  private_key: string;
  created_at: number;
}

/** A device registered for the push proxy (notifications' `notifications_pushhash`). */
export interface PushDevicesTable {
  id: Generated<number>;
  user_id: string;
  app_password_id: number;
  device_identifier: string;
  device_public_key: string;
  device_public_key_hash: string;
  push_token_hash: string;
  proxy_server: string;
  app_type: string;
  created_at: number;
}

/** A browser's (or UnifiedPush distributor's) Web Push subscription. */
export interface WebpushSubscriptionsTable {
  id: Generated<number>;
  user_id: string;
  app_password_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  app_types: string;
  activation_token: string;
  activated: Generated<number>;
  created_at: number;
}

/** The server's VAPID key pair (one row, id 1). */
export interface PushVapidTable {
  id: number;
  public_key: string;
  private_key: string;
}
