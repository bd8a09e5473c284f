/**
 * Users and groups: the account directory used by the provisioning API, the CLI and
 * every area that needs to know who exists. Changes other areas follow (a user deleted, a member
 * added to or removed from a group, credentials changed) are announced on the event bus.
 */
import type { EventBus } from '../../events/bus.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { UsersRepository, UserRow } from '../../db/repositories/users.js';
import type { GroupsRepository, GroupRow } from '../../db/repositories/groups.js';
import type { AppPasswordsRepository } from '../../db/repositories/app-passwords.js';
import { notFound, ocsFailure, ocsNotFound, ocsUnauthorised } from '../../domain/errors.js';
import { displayNameProblem, emailProblem, groupIdProblem, passwordProblem, userIdProblem } from '../../domain/accounts.js';
import { hashPassword } from '../../domain/passwords.js';
import { nowSeconds } from '../../domain/time.js';

export const ADMIN_GROUP = 'admin';

export interface NewUser {
  id: string;
  password: string;
  displayName?: string;
  email?: string;
  groups?: string[];
  /** The logged-in user creating the account (conversations of its groups invite in their name). */
  createdBy?: string;
}

export class DirectoryService {
  readonly users: UsersRepository;
  readonly groups: GroupsRepository;
  readonly appPasswords: AppPasswordsRepository;
  constructor(
    repos: Pick<Repositories, 'users' | 'groups' | 'appPasswords'>,
    private readonly events: EventBus,
  ) {
    this.users = repos.users;
    this.groups = repos.groups;
    this.appPasswords = repos.appPasswords;
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

  /** User ids matching `search` (id, display name or email), ordered by id. */
  async listUserIds(search = '', limit?: number, offset = 0): Promise<string[]> {
    return (await this.users.list(search, limit, offset)).map((u) => u.id);
  }

  /** Users matching `search` with their display names, ordered by id (CLI listing). */
  listUsers(search = '', limit?: number, offset = 0): Promise<UserRow[]> {
    return this.users.list(search, limit, offset);
  }

  async listGroupIds(search = '', limit?: number, offset = 0): Promise<string[]> {
    return (await this.groups.list(search, limit, offset)).map((g) => g.id);
  }

  listGroups(search = '', limit?: number, offset = 0): Promise<GroupRow[]> {
    return this.groups.list(search, limit, offset);
  }

  /** The groups of each of `userIds` (one query). */
  groupsOfMany(userIds: string[]): Promise<Map<string, string[]>> {
    return this.groups.groupsOfMany(userIds);
  }

  groupsOf(userId: string): Promise<string[]> {
    return this.groups.groupsOf(userId);
  }

  /** Members of an existing group (404 `group` otherwise). */
  async membersOf(groupId: string): Promise<string[]> {
    await this.requireGroup(groupId);
    return this.groups.membersOf(groupId);
  }

  /**
   * Creates a user with its groups in one transaction; throws provisioning-API failures
   * (102 exists, 104 unknown group, 101 invalid id/password/display name/email) and then
   * nothing is stored. Checks run in Nextcloud's order (exists before groups before the rest).
   */
  async createUser(input: NewUser): Promise<UserRow> {
    const idProblem = userIdProblem(input.id);
    // Nextcloud logins are case-insensitive, so "Alice" clashes with an existing "alice".
    if (!idProblem && (await this.users.findCaseInsensitive(input.id))) throw ocsFailure(102, 'userid', 'User already exists');
    const groups = [...new Set(input.groups ?? [])];
    if (groups.length) {
      const found = new Set((await this.groups.existing(groups)).map((g) => g.id));
      const missing = groups.find((g) => !found.has(g));
      if (missing !== undefined) throw ocsFailure(104, 'groups', `group ${missing} does not exist`);
    }
    if (idProblem) throw ocsFailure(101, 'userid', idProblem);
    const pwProblem = passwordProblem(input.password);
    if (pwProblem) throw ocsFailure(101, 'password', pwProblem);
    const dn = input.displayName ?? '';
    const dnProblem = displayNameProblem(dn);
    if (dnProblem) throw ocsFailure(101, 'displayName', dnProblem);
    const email = input.email ?? '';
    const emProblem = emailProblem(email);
    if (emProblem) throw ocsFailure(101, 'email', emProblem);
    const row: UserRow = {
      id: input.id,
      display_name: dn,
      email,
      enabled: 1,
      password_hash: await hashPassword(input.password),
      created_at: nowSeconds(),
      last_login: 0,
    };
    try {
      await this.users.insertWithGroups(row, groups);
    } catch {
      // A concurrent insert of the same id won the race (primary key).
      throw ocsFailure(102, 'userid', 'User already exists');
    }
    for (const groupId of groups) await this.events.emit('group.member-added', { groupId, userId: input.id, by: input.createdBy });
    return row;
  }

  /** New login password; cached credentials of the user stop working at once. */
  async setPassword(userId: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw ocsFailure(102, 'password', problem);
    await this.requireUser(userId);
    await this.users.update(userId, { password_hash: await hashPassword(password) });
    await this.events.emit('user.credentials-changed', { userId });
  }

  async setDisplayName(userId: string, name: string): Promise<void> {
    const problem = displayNameProblem(name);
    if (problem) throw ocsFailure(101, 'displayname', problem);
    await this.requireUser(userId);
    // The conversations show the new name at once, on every process (the attendee rows are
    // renamed with the account; their change feed topics reach the rendered answers).
    await this.users.rename(userId, name);
  }

  async setEmail(userId: string, email: string): Promise<void> {
    const problem = emailProblem(email);
    if (problem) throw ocsFailure(101, 'email', problem);
    await this.requireUser(userId);
    await this.users.update(userId, { email });
  }

  async setEnabled(userId: string, enabled: boolean): Promise<void> {
    await this.requireUser(userId);
    await this.users.update(userId, { enabled: enabled ? 1 : 0 });
    if (!enabled) await this.events.emit('user.credentials-changed', { userId });
  }

  /**
   * Deletes a user; subscribers of `user.deleting` (conversations, ...) clean up first, then the
   * account goes in one transaction. `by`: the logged-in admin deleting it (the conversations
   * record the removal in their name; without one, the command line's).
   */
  async deleteUser(userId: string, by?: string): Promise<void> {
    await this.requireUser(userId);
    // Disabled first, so the user's own requests stop authenticating (in every process, through
    // the credentials' change) while the conversations are cleaned up: otherwise they could
    // create rooms and join them behind the clean-up. A request already past authentication can
    // still land; that window is what is left.
    await this.users.update(userId, { enabled: 0 });
    await this.events.emit('user.credentials-changed', { userId });
    await this.events.emit('user.deleting', { userId, by });
    await this.users.deleteAccount(userId);
    await this.events.emit('user.credentials-changed', { userId });
  }

  /** Creates a group (101 invalid id or display name, 102 exists). The display name defaults to the id. */
  async createGroup(id: string, displayName?: string): Promise<GroupRow> {
    const problem = groupIdProblem(id);
    if (problem) throw ocsFailure(101, 'groupid', problem);
    const dn = displayName || id;
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

  /**
   * Nextcloud's `PUT /cloud/groups/{groupid}` with `key=displayname`: renames the group; its
   * attendees in conversations show the new name. 404 (998) unknown group, 101 bad key or name.
   */
  async updateGroup(id: string, key: string, value: string): Promise<void> {
    // Nextcloud refuses any other key before looking at the group (docs/reference/accounts-and-login.md#provisioning-groups).
    if (key !== 'displayname') throw ocsUnauthorised('key', 'Only key "displayname" can be changed');
    if (!(await this.groups.find(id))) throw ocsNotFound('groupid', 'group does not exist');
    const problem = value.trim() === '' ? 'The display name must not be empty' : displayNameProblem(value);
    if (problem) throw ocsFailure(101, 'displayname', problem);
    await this.groups.rename(id, value);
  }

  /** `by`: the logged-in user deleting it (its conversations record the removals in their name). */
  async deleteGroup(id: string, by?: string): Promise<void> {
    if (id === ADMIN_GROUP) throw ocsFailure(102, 'groupid', 'The admin group cannot be deleted');
    const g = await this.groups.find(id);
    if (!g) throw ocsFailure(101, 'groupid', 'group does not exist');
    const members = await this.groups.membersOf(id);
    await this.groups.delete(id);
    await this.events.emit('group.deleted', { groupId: id, members, by });
  }

  /** `by`: the logged-in user making the change (the conversations of the group invite in their name). */
  async addToGroup(groupId: string, userId: string, by?: string): Promise<void> {
    if (!groupId) throw ocsFailure(101, 'groupid', 'no group specified');
    if (!(await this.groups.find(groupId))) throw ocsFailure(102, 'groupid', 'group does not exist');
    if (!(await this.users.find(userId))) throw ocsFailure(103, 'userid', 'user does not exist');
    if (await this.groups.addMember(groupId, userId)) {
      await this.events.emit('group.member-added', { groupId, userId, by });
    }
  }

  async removeFromGroup(groupId: string, userId: string, by?: string): Promise<void> {
    if (!groupId) throw ocsFailure(101, 'groupid', 'no group specified');
    if (!(await this.groups.find(groupId))) throw ocsFailure(102, 'groupid', 'group does not exist');
    if (!(await this.users.find(userId))) throw ocsFailure(103, 'userid', 'user does not exist');
    if (await this.groups.removeMember(groupId, userId)) {
      await this.events.emit('group.member-removed', { groupId, userId, by });
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
    await this.events.emit('user.credentials-changed', { userId });
    await this.groups.addMember(ADMIN_GROUP, userId);
    return 'updated';
  }

  async userCount(): Promise<number> {
    return this.users.count();
  }
}
