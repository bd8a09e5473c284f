/**
 * Table types for Kysely. Times are unix seconds (UTC); booleans are stored as 0/1
 * integers so that both dialects read them the same way.
 * Each capability area adds its tables here alongside its migration.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  display_name: string;
  email: string;
  enabled: number;
  password_hash: string;
  created_at: number;
}

export interface GroupsTable {
  id: string;
  display_name: string;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
}

export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: string;
  /** sha256 hex of the app password; the password itself is never stored. */
  token_hash: string;
  name: string;
  created_at: number;
}

export interface AppConfigTable {
  key: string;
  value: string;
}

export interface UserPreferencesTable {
  user_id: string;
  key: string;
  value: string;
}

export interface BruteForceAttemptsTable {
  id: Generated<number>;
  subnet: string;
  action: string;
  occurred_at: number;
}

/** One row (id = 1): bumped on every change that in-memory caches depend on. */
export interface CacheStateTable {
  id: number;
  generation: number;
}

export interface Database {
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  app_passwords: AppPasswordsTable;
  app_config: AppConfigTable;
  user_preferences: UserPreferencesTable;
  brute_force_attempts: BruteForceAttemptsTable;
  cache_state: CacheStateTable;
}
