/**
 * Nextcloud's provisioning API for accounts (docs/api.md "Provisioning API") over the
 * DirectoryService: who may do what, and the OCS codes Nextcloud's provisioning_api
 * UsersController / GroupsController answer with. Routes are thin; the CLI calls the
 * DirectoryService directly (no caller rules).
 *
 * Parley has admins and users, no sub-admins: where Nextcloud checks "admin or sub-admin of the
 * user", Parley checks "admin".
 */
import { forbidden, ocsFailure, ocsNotFound } from '../../domain/errors.js';
import { isEditableUserKey, mayManageUser } from '../../domain/accounts.js';
import { presentUserDetails } from '../../presenters/user-details.js';
import type { AuthService } from './auth.js';
import { ADMIN_GROUP, type DirectoryService, type NewUser } from './directory.js';
import type { RequestContext } from '../platform/request-context.js';

export interface Page {
  search: string;
  limit?: number;
  offset: number;
}

/** Longest app-password name kept (the client's User-Agent). */
const APP_PASSWORD_NAME_MAX = 255;

export class ProvisioningService {
  constructor(
    private readonly directory: DirectoryService,
    private readonly auth: AuthService,
  ) {}

  private caller(ctx: RequestContext): string {
    // Routes using this service require a login; the OCS layer answered 401 otherwise.
    return ctx.userId!;
  }

  /** `GET /cloud/users` (admin). */
  async listUsers(page: Page): Promise<{ users: string[] }> {
    return { users: await this.directory.listUserIds(page.search, page.limit, page.offset) };
  }

  /**
   * `GET /cloud/users/details`: the records of the users matching `search` (id, name or e-mail),
   * keyed by id, as Nextcloud's UsersController::getUsersDetails. Only admins (Nextcloud: and
   * sub-admins, which Parley has not) see anyone; everybody else gets an empty list, not a
   * refusal. One query for the users and one for their groups.
   */
  async usersDetails(ctx: RequestContext, page: Page): Promise<{ users: Record<string, Record<string, unknown>> | [] }> {
    if (!(await ctx.isAdmin())) return { users: [] };
    const rows = await this.directory.listUsers(page.search, page.limit, page.offset);
    if (rows.length === 0) return { users: [] };
    const groups = await this.directory.groupsOfMany(rows.map((u) => u.id));
    return { users: Object.fromEntries(rows.map((u) => [u.id, presentUserDetails(u, { groups: groups.get(u.id) ?? [], includeScopes: false })])) };
  }

  /** `POST /cloud/users` (admin): 102 exists, 104 unknown group, 101 invalid. */
  async createUser(input: NewUser): Promise<{ id: string }> {
    const row = await this.directory.createUser(input);
    return { id: row.id };
  }

  /**
   * `GET /cloud/users/{userid}`: an unknown user is 404 ("User does not exist"); another user's
   * record is refused to non-admins with Nextcloud's 998 (HTTP 404 on v2).
   */
  async userDetails(ctx: RequestContext, userId: string): Promise<Record<string, unknown>> {
    const me = this.caller(ctx);
    const user = await this.directory.requireUser(userId);
    if (!mayManageUser(me, await ctx.isAdmin(), user.id)) throw ocsNotFound('user');
    const groups = user.id === me ? await ctx.groups() : await this.directory.groupsOf(user.id);
    return presentUserDetails(user, { groups, includeScopes: user.id === me });
  }

  /** `GET /cloud/user`: the caller's own record. */
  currentUser(ctx: RequestContext): Promise<Record<string, unknown>> {
    return this.userDetails(ctx, this.caller(ctx));
  }

  /**
   * `PUT /cloud/users/{userid}` with `key`/`value`: admins edit anyone, users themselves.
   * Unknown target or no right: 998; unknown key: 113; invalid value: 101 (102 for passwords).
   */
  async editUser(ctx: RequestContext, userId: string, key: string, value: string): Promise<void> {
    const me = this.caller(ctx);
    const user = await this.directory.getUser(userId);
    if (!user || !mayManageUser(me, await ctx.isAdmin(), user.id)) throw ocsNotFound('user', user ? '' : 'User does not exist');
    if (!isEditableUserKey(key)) throw ocsFailure(113, 'key', `Unsupported key "${key}"; use displayname, email or password`);
    switch (key) {
      case 'display':
      case 'displayname':
        return this.directory.setDisplayName(user.id, value);
      case 'email':
        return this.directory.setEmail(user.id, value);
      case 'password':
        return this.directory.setPassword(user.id, value);
    }
  }

  /** `DELETE /cloud/users/{userid}` (admin): 998 unknown, 101 yourself. */
  async deleteUser(ctx: RequestContext, userId: string): Promise<void> {
    const user = await this.directory.getUser(userId);
    if (!user) throw ocsNotFound('user', 'User does not exist');
    if (user.id === this.caller(ctx)) throw ocsFailure(101, 'userid', 'You cannot delete yourself');
    await this.directory.deleteUser(user.id, this.caller(ctx));
  }

  /** `PUT /cloud/users/{userid}/enable|disable` (admin): 101 for an unknown user or yourself. */
  async setEnabled(ctx: RequestContext, userId: string, enabled: boolean): Promise<void> {
    const user = await this.directory.getUser(userId);
    if (!user) throw ocsFailure(101, 'userid', 'User does not exist');
    if (user.id === this.caller(ctx)) {
      throw ocsFailure(101, 'userid', enabled ? 'You cannot enable yourself' : 'You cannot disable yourself');
    }
    await this.directory.setEnabled(user.id, enabled);
  }

  /** `GET /cloud/users/{userid}/groups` (admin or self): 998 unknown or not allowed. */
  async userGroups(ctx: RequestContext, userId: string): Promise<{ groups: string[] }> {
    const me = this.caller(ctx);
    const user = await this.directory.getUser(userId);
    if (!user || !mayManageUser(me, await ctx.isAdmin(), user.id)) throw ocsNotFound('user', user ? '' : 'User does not exist');
    return { groups: user.id === me ? await ctx.groups() : await this.directory.groupsOf(user.id) };
  }

  /** `POST /cloud/users/{userid}/groups` (admin): 101 no group, 102 unknown group, 103 unknown user. */
  addToGroup(userId: string, groupId: string, by?: string): Promise<void> {
    return this.directory.addToGroup(groupId, userId, by);
  }

  /**
   * `DELETE /cloud/users/{userid}/groups` (admin): as adding, plus 105 when an admin removes
   * themself from `admin` (Nextcloud refuses so an instance keeps its admin).
   */
  async removeFromGroup(ctx: RequestContext, userId: string, groupId: string): Promise<void> {
    if (groupId.trim() !== '' && groupId === ADMIN_GROUP && userId === this.caller(ctx) && (await this.directory.getUser(userId))) {
      throw ocsFailure(105, 'groupid', 'Cannot remove yourself from the admin group');
    }
    await this.directory.removeFromGroup(groupId, userId, this.caller(ctx));
  }

  /** `GET /cloud/groups` (admin). */
  async listGroups(page: Page): Promise<{ groups: string[] }> {
    return { groups: await this.directory.listGroupIds(page.search, page.limit, page.offset) };
  }

  /** `POST /cloud/groups` (admin): 101 invalid, 102 exists. */
  async createGroup(groupId: string, displayName: string): Promise<void> {
    await this.directory.createGroup(groupId, displayName);
  }

  /** `DELETE /cloud/groups/{groupid}` (admin): 101 unknown, 102 `admin`. */
  deleteGroup(groupId: string, by?: string): Promise<void> {
    return this.directory.deleteGroup(groupId, by);
  }

  /** `GET /cloud/groups/{groupid}/users` (admin): 404 unknown group. */
  async groupMembers(groupId: string): Promise<{ users: string[] }> {
    return { users: await this.directory.membersOf(groupId) };
  }

  /**
   * `GET /core/getapppassword`: turns the caller's login into a new app password named after
   * the client (User-Agent). A request that already used an app password gets 403, as in
   * Nextcloud's AppPasswordController.
   */
  async createAppPassword(ctx: RequestContext, userAgent: string): Promise<{ apppassword: string }> {
    if (ctx.appPasswordId !== undefined) {
      throw forbidden('apppassword', 'You cannot request a new app password with an app password');
    }
    const name = (userAgent || 'unknown client').slice(0, APP_PASSWORD_NAME_MAX);
    return { apppassword: await this.auth.createAppPassword(this.caller(ctx), name) };
  }

  /** `DELETE /core/apppassword`: revokes the app password of this request (403 without one). */
  async revokeAppPassword(ctx: RequestContext): Promise<void> {
    if (ctx.appPasswordId === undefined) throw forbidden('apppassword', 'No app password in use');
    await this.auth.revokeAppPassword(ctx.appPasswordId, this.caller(ctx));
  }

  /**
   * `POST /core/apppassword/rotate`: gives the app password of this request a new secret; the
   * old one stops working (403 without one).
   */
  async rotateAppPassword(ctx: RequestContext): Promise<{ apppassword: string }> {
    if (ctx.appPasswordId === undefined) throw forbidden('apppassword', 'No app password in use');
    return { apppassword: await this.auth.rotateAppPassword(ctx.appPasswordId) };
  }
}
