/**
 * Who is calling and what they may do, for one request. Services receive this instead of
 * HTTP objects. Group membership and the app-config snapshot are loaded lazily, at most once.
 */
import type { UserRow } from '../../db/repositories/users.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { AppConfigService } from './app-config.js';
import type { DirectoryService } from '../accounts/directory.js';
import { ADMIN_GROUP } from '../accounts/directory.js';
import { listableScopes } from '../../domain/visibility.js';

export class RequestContext {
  private groupsPromise?: Promise<string[]>;
  private configPromise?: Promise<AppConfigSnapshot>;

  constructor(
    private readonly directory: DirectoryService,
    private readonly appConfig: AppConfigService,
    /** The logged-in user, if any. */
    readonly user: UserRow | undefined,
    /** Client address (brute-force throttling). */
    readonly ip: string,
    /** The app password used for this request, when one was. */
    readonly appPasswordId?: number,
    /** Request headers (lower-case names) that services may consult (SIP bridge, tab id). */
    readonly headers: Record<string, string | string[] | undefined> = {},
  ) {}

  /** Guest cookie session id, set by the guest-session layer. */
  guestSessionKey?: string;

  /**
   * A proxied request of another server's user (`X-Nextcloud-Federation`, Basic with the cloud id
   * and the shared secret; docs/reference/federation.md#proxied-requests): checked against the
   * conversation's federated attendee when the conversation is looked up. Never logged.
   */
  federated?: { cloudId: string; secret: string };

  /**
   * Whether the API route being answered works on a conversation kept here for a host elsewhere
   * (the route's `federation` option, Talk's FederationSupported): `false` makes looking such a
   * conversation up answer 406 (RoomsService.lookup; docs/federation.md#the-proxied-conversation).
   * Unset outside API routes.
   */
  proxiedRoomsSupported?: boolean;

  /** The browser login session cookie the user was recognised by (Parley's web pages), if any. */
  loginSessionKey?: string;

  get isUser(): boolean {
    return this.user !== undefined;
  }

  /** True for the operator (SystemContext), never for an HTTP caller. */
  get isSystem(): boolean {
    return false;
  }

  get userId(): string | undefined {
    return this.user?.id;
  }

  groups(): Promise<string[]> {
    if (!this.user) return Promise.resolve([]);
    this.groupsPromise ??= this.directory.groups.groupsOf(this.user.id);
    return this.groupsPromise;
  }

  async isAdmin(): Promise<boolean> {
    return (await this.groups()).includes(ADMIN_GROUP);
  }

  /** True when `list` is empty or the user is in one of its groups. */
  async inGroupList(list: string[]): Promise<boolean> {
    if (list.length === 0) return true;
    if (!this.user) return false;
    const mine = await this.groups();
    return list.some((g) => mine.includes(g));
  }

  config(): Promise<AppConfigSnapshot> {
    this.configPromise ??= this.appConfig.snapshot();
    return this.configPromise;
  }

  /** `allowed_groups` rule: a user outside a non-empty list may not use Talk. Guests may. */
  async canUseTalk(): Promise<boolean> {
    if (!this.user) return true;
    const cfg = await this.config();
    return this.inGroupList(cfg.list('allowed_groups'));
  }
}

/**
 * The operator acting through `parley talk:room:*` commands, as Talk's occ: no user and no
 * address. RoomsService lets it see every conversation and treats it as an owner of each, so
 * the commands run the API's own service operations and rules without a caller.
 */
export class SystemContext extends RequestContext {
  constructor(directory: DirectoryService, appConfig: AppConfigService) {
    super(directory, appConfig, undefined, 'system');
  }

  override get isSystem(): boolean {
    return true;
  }
}

/** The listable scopes under which rooms are listed for the caller (domain/visibility.ts). */
export async function listableScopesFor(ctx: RequestContext): Promise<number[]> {
  return ctx.user ? listableScopes(true, await ctx.groups()) : [];
}
