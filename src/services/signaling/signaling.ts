/**
 * Signaling settings (docs/reference/signaling.md#settings): what a client needs to connect to a call —
 * STUN and TURN servers (TURN with time-limited credentials), the signaling mode and server, the
 * hello v1 ticket and the hello v2 JWT. Tickets are also validated here for the backend API.
 */
import { notFound } from '../../domain/errors.js';
import {
  signalingHttpBase,
  signalingMode,
  signalingServers,
  signalingTicketV1,
  signJwt,
  tokenAlgOf,
  tokenKeyNames,
  tokenPrivateKey,
  turnSettings,
  validSignalingTicket,
  type TurnEntry,
  type TurnSettings,
} from '../../domain/signaling.js';
import { nowSeconds } from '../../domain/time.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { RequestContext } from '../platform/request-context.js';
import type { RoomsService } from '../conversations/rooms.js';
import { ensureSignalingSecrets, signalingSecretsMissing } from './signaling-secrets.js';

export interface SignalingSettings {
  signalingMode: string;
  userId: string | null;
  hideWarning: boolean;
  server: string;
  ticket: string;
  helloAuthParams: { '1.0': { userid: string | null; ticket: string }; '2.0': { token: string } };
  federation: null;
  stunservers: Array<{ urls: string[] }>;
  turnservers: TurnSettings[];
  sipDialinInfo: string;
}

/** Hello v2 tokens are short-lived (docs/reference/signaling.md#tickets: exp = iat + 60 s). */
const JWT_LIFETIME = 60;

export class SignalingService {
  constructor(
    private readonly appConfig: AppConfigService,
    private readonly rooms: RoomsService,
    private readonly baseUrl: string,
  ) {}

  /**
   * GET /signaling/settings. With a token the caller must see the conversation (guests: be in
   * it); without one only logged-in users may ask (mobile apps, the admin check). Else 404.
   */
  async settings(ctx: RequestContext, token: string): Promise<SignalingSettings> {
    if (token !== '') {
      const found = await this.rooms.getRoomForCaller(ctx, token);
      if (!ctx.user && !found.attendee) throw notFound('room');
    } else if (!ctx.user) {
      throw notFound('room');
    }
    const cfg = await this.config();
    const mode = signalingMode(cfg);
    const servers = signalingServers(cfg);
    const userId = ctx.user?.id ?? null;
    // In both modes, as Talk's lib/Controller/SignalingController.php getSettings: clients may
    // read the ticket before they know which mode they are in.
    const ticket = this.ticketV1(cfg, userId ?? '');
    return {
      signalingMode: mode,
      userId,
      hideWarning: mode === 'external' || cfg.bool('hide_signaling_warning'),
      server: servers.servers[0]?.server ?? '',
      ticket,
      helloAuthParams: { '1.0': { userid: userId, ticket }, '2.0': { token: this.helloV2Token(cfg, ctx) } },
      federation: null,
      stunservers: this.stunServers(cfg),
      turnservers: turnSettings(cfg.json<TurnEntry[]>('turn_servers', []) ?? [], nowSeconds()),
      sipDialinInfo: cfg.get('sip_bridge_shared_secret') !== '' ? cfg.get('sip_bridge_dialin_info') : '',
    };
  }

  /** A guest's v1 ticket, for the setup check's hello through a signaling server (`parley doctor`). */
  async guestTicket(): Promise<string> {
    return this.ticketV1(await this.config(), '');
  }

  private stunServers(cfg: AppConfigSnapshot): Array<{ urls: string[] }> {
    const list = cfg.list('stun_servers');
    return list.length ? [{ urls: list.map((s) => `stun:${s}`) }] : [];
  }

  /** The snapshot with the generated secrets present (made now if the algorithm changed since start). */
  private async config(): Promise<AppConfigSnapshot> {
    let cfg = await this.appConfig.snapshot();
    if (signalingSecretsMissing(cfg)) {
      await ensureSignalingSecrets(this.appConfig);
      cfg = await this.appConfig.snapshot();
    }
    return cfg;
  }

  /**
   * docs/reference/signaling.md#tickets ticket. Deviation: Talk keeps a per-user secret in the user's preferences; Parley signs
   * users' and guests' tickets with the one `signaling_ticket_secret` (the ticket names the user).
   */
  private ticketV1(cfg: AppConfigSnapshot, userId: string): string {
    return signalingTicketV1(cfg.get('signaling_ticket_secret'), userId, nowSeconds());
  }

  /** docs/reference/signaling.md#tickets hello v2 token: iss = base URL with `/`, 60 s lifetime, `sub` only for users. */
  private helloV2Token(cfg: AppConfigSnapshot, ctx: RequestContext): string {
    const alg = tokenAlgOf(cfg);
    const key = tokenPrivateKey(alg, cfg.raw(tokenKeyNames(alg).priv) ?? '');
    const now = nowSeconds();
    const claims: Record<string, unknown> = { iss: `${this.baseUrl}/`, iat: now, exp: now + JWT_LIFETIME };
    if (ctx.user) {
      claims.sub = ctx.user.id;
      claims.userdata = { displayname: ctx.user.display_name };
    }
    return signJwt(alg, key, claims);
  }

  /**
   * Admin check that configured server `index` answers (Talk's `GET signaling/welcome/{serverId}`):
   * a server-side GET of its `/api/v1/welcome`. 404 `server` for an unknown index.
   */
  async welcome(index: number): Promise<{ status: number; data: Record<string, unknown> }> {
    const list = signalingServers(await this.appConfig.snapshot());
    const entry = list.servers[index];
    if (!entry) throw notFound('server', 'There is no signaling server with this id');
    const url = `${signalingHttpBase(entry.server)}/api/v1/welcome`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000), headers: { Accept: 'application/json' } });
      const text = await res.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // handled below
      }
      if (!res.ok || typeof body.version !== 'string') return { status: 500, data: { error: 'WELCOME_MALFORMED', server: entry.server } };
      return { status: 200, data: { ...body, server: entry.server } };
    } catch {
      return { status: 500, data: { error: 'CAN_NOT_CONNECT', server: entry.server } };
    }
  }

  /** Whether a v1 ticket presented to the signaling server is Parley's, for `userId` ('' = guest). */
  async ticketValid(userId: string, ticket: string): Promise<boolean> {
    const cfg = await this.appConfig.snapshot();
    return validSignalingTicket(cfg.get('signaling_ticket_secret'), userId, ticket);
  }
}
