/**
 * Users and groups: the account directory used by the provisioning API, the CLI and
 * every area that needs to know who exists. Other areas subscribe to changes (a user
 * deleted, a member added to or removed from a group) through the listeners below.
 */
import type { Db } from '../db/database.js';
import { UsersRepository, type UserRow } from '../db/repositories/users.js';
import { GroupsRepository, type GroupRow } from '../db/repositories/groups.js';
import { AppPasswordsRepository } from '../db/repositories/app-passwords.js';
import { PreferencesRepository } from '../db/repositories/preferences.js';
import { ApiError, badRequest, notFound } from '../domain/errors.js';
import { displayNameProblem, emailProblem, groupIdProblem, passwordProblem, userIdProblem } from '../domain/accounts.js';
import { hashPassword } from '../domain/passwords.js';

export const ADMIN_GROUP = 'admin';

/** Nextcloud provisioning API failure (statuscode 1xx maps to HTTP 400 on v2). */
const ocsFailure = (code: number, error: string, message: string) => new ApiError(code, { error, message }, message);

export interface DirectoryListeners {
  userDeleted: Array<(userId: string) => Promise<void>>;
  memberAdded: Array<(groupId: string, userId: string) => Promise<void>>;
  memberRemoved: Array<(groupId: string, userId: string) => Promise<void>>;
  groupDeleted: Array<(groupId: string, members: string[]) => Promise<void>>;
  /** Password changed or user disabled: auth caches drop the user's credentials. */
  credentialsChanged: Array<(userId: string) => void>;
}

export interface NewUser {
  id: string;
  password: string;
  displayName?: string;
  email?: string;
  groups?: string[];
}

export class DirectoryService {
  readonly users: UsersRepository;
  readonly groups: GroupsRepository;
  readonly appPasswords: AppPasswordsRepository;
  private readonly prefs: PreferencesRepository;
  readonly listeners: DirectoryListeners = {
    userDeleted: [],
    memberAdded: [],
    memberRemoved: [],
    groupDeleted: [],
    credentialsChanged: [],
  };

  constructor(private readonly db: Db) {
    this.users = new UsersRepository(db.kysely);
    this.groups = new GroupsRepository(db.kysely);
    this.appPasswords = new AppPasswordsRepository(db.kysely);
    this.prefs = new PreferencesRepository(db.kysely);
  }

  getUser(id: string): Promise<UserRow | undefined> {
    return this.users.find(id);
  }

  async requireUser(id: string): Promise<UserRow> {
    const u = await this.users.find(id);
    if (!u) throw notFound('user', 'User does not exist');
    return u;
  }

  async requireGroup(id: string): Promise<GroupRow> {
    const g = await this.groups.find(id);
    if (!g) throw notFound('group', 'The requested group could not be found');
    return g;
  }

  async isAdmin(userId: string): Promise<boolean> {
    return (await this.groups.groupsOf(userId)).includes(ADMIN_GROUP);
  }

  /** Creates a user; throws provisioning-API failures (102 exists, 101 invalid, 104 unknown group). */
  async createUser(input: NewUser): Promise<UserRow> {
    const idProblem = userIdProblem(input.id);
    if (idProblem) throw ocsFailure(101, 'userid', idProblem);
    const pwProblem = passwordProblem(input.password);
    if (pwProblem) throw ocsFailure(101, 'password', pwProblem);
    const dn = input.displayName ?? '';
    const dnProblem = displayNameProblem(dn);
    if (dnProblem) throw ocsFailure(101, 'displayName', dnProblem);
    const email = input.email ?? '';
    const emProblem = emailProblem(email);
    if (emProblem) throw ocsFailure(101, 'email', emProblem);
    const groups = [...new Set(input.groups ?? [])];
    if (groups.length) {
      const found = new Set((await this.groups.existing(groups)).map((g) => g.id));
      const missing = groups.find((g) => !found.has(g));
      if (missing !== undefined) throw ocsFailure(104, 'groups', `group ${missing} does not exist`);
    }
    if (await this.users.find(input.id)) throw ocsFailure(102, 'userid', 'User already exists');
    // Case-insensitive clash (Nextcloud logins are case-insensitive).
    const passwordHash = await hashPassword(input.password);
    const row: UserRow = {
      id: input.id,
      display_name: dn,
      email,
      enabled: 1,
      password_hash: passwordHash,
      created_at: Math.floor(Date.now() / 1000),
    };
    try {
      await this.users.insert(row);
    } catch {
      // A concurrent insert of the same id lost the race.
      throw ocsFailure(102, 'userid', 'User already exists');
    }
    for (const g of groups) await this.addToGroup(g, input.id);
    return row;
  }

  async setPassword(userId: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw ocsFailure(101, 'password', problem);
    await this.requireUser(userId);
    await this.users.update(userId, { password_hash: await hashPassword(password) });
    this.listeners.credentialsChanged.forEach((fn) => fn(userId));
  }

  async setDisplayName(userId: string, name: string): Promise<void> {
    const problem = displayNameProblem(name);
    if (problem) throw ocsFailure(101, 'displayname', problem);
    await this.requireUser(userId);
    await this.users.update(userId, { display_name: name });
  }

  async setEmail(userId: string, email: string): Promise<void> {
    const problem = emailProblem(email);
    if (problem) throw ocsFailure(102, 'email', problem);
    await this.requireUser(userId);
    await this.users.update(userId, { email });
  }

  async setEnabled(userId: string, enabled: boolean): Promise<void> {
    await this.requireUser(userId);
    await this.users.update(userId, { enabled: enabled ? 1 : 0 });
    if (!enabled) this.listeners.credentialsChanged.forEach((fn) => fn(userId));
  }

  async deleteUser(userId: string): Promise<void> {
    await this.requireUser(userId);
    for (const fn of this.listeners.userDeleted) await fn(userId);
    await this.groups.removeUserEverywhere(userId);
    await this.appPasswords.deleteForUser(userId);
    await this.prefs.deleteForUser(userId);
    await this.users.delete(userId);
    this.listeners.credentialsChanged.forEach((fn) => fn(userId));
  }

  async createGroup(id: string, displayName?: string): Promise<GroupRow> {
    const problem = groupIdProblem(id);
    if (problem) throw ocsFailure(101, 'groupid', problem);
    const dn = displayName ?? id;
    const dnProblem = displayNameProblem(dn);
    if (dnProblem) throw ocsFailure(101, 'displayname', dnProblem);
    if (await this.groups.find(id)) throw ocsFailure(102, 'groupid', 'group exists');
    const row = { id, display_name: dn };
    try {
      await this.groups.insert(row);
    } catch {
      throw ocsFailure(102, 'groupid', 'group exists');
    }
    return row;
  }

  async deleteGroup(id: string): Promise<void> {
    if (id === ADMIN_GROUP) throw ocsFailure(102, 'groupid', 'The admin group cannot be deleted');
    const g = await this.groups.find(id);
    if (!g) throw ocsFailure(101, 'groupid', 'group does not exist');
    const members = await this.groups.membersOf(id);
    await this.groups.delete(id);
    for (const fn of this.listeners.groupDeleted) await fn(id, members);
  }

  async addToGroup(groupId: string, userId: string): Promise<void> {
    if (!groupId) throw ocsFailure(101, 'groupid', 'no group specified');
    if (!(await this.groups.find(groupId))) throw ocsFailure(102, 'groupid', 'group does not exist');
    if (!(await this.users.find(userId))) throw ocsFailure(103, 'userid', 'user does not exist');
    if (await this.groups.addMember(groupId, userId)) {
      for (const fn of this.listeners.memberAdded) await fn(groupId, userId);
    }
  }

  async removeFromGroup(groupId: string, userId: string): Promise<void> {
    if (!groupId) throw ocsFailure(101, 'groupid', 'no group specified');
    if (!(await this.groups.find(groupId))) throw ocsFailure(102, 'groupid', 'group does not exist');
    if (!(await this.users.find(userId))) throw ocsFailure(103, 'userid', 'user does not exist');
    if (await this.groups.removeMember(groupId, userId)) {
      for (const fn of this.listeners.memberRemoved) await fn(groupId, userId);
    }
  }

  /** Ensures the account exists with this password and is an enabled admin (ADMIN_USER at start). */
  async ensureAdmin(userId: string, password: string): Promise<'created' | 'updated'> {
    if (!(await this.groups.find(ADMIN_GROUP))) await this.createGroup(ADMIN_GROUP, 'admin');
    const existing = await this.users.find(userId);
    if (!existing) {
      await this.createUser({ id: userId, password, displayName: userId, groups: [ADMIN_GROUP] });
      return 'created';
    }
    await this.users.update(userId, { password_hash: await hashPassword(password), enabled: 1 });
    this.listeners.credentialsChanged.forEach((fn) => fn(userId));
    await this.groups.addMember(ADMIN_GROUP, userId);
    return 'updated';
  }

  async userCount(): Promise<number> {
    return this.users.count();
  }

  badInput(field: string, message: string): never {
    throw badRequest(field, message);
  }
}
