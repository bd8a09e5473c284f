/**
 * The remote side of a proxied conversation (docs/reference/federation.md#proxied-requests): what
 * a user here does in a conversation kept for one on another server is forwarded to that host
 * as Talk's ProxyRequest makes it (the user's cloud id and the shared secret of their accepted
 * invitation, `X-Nextcloud-Federation`), through the outbound check of every federation request,
 * and the host's answer is mapped back: the host's token becomes the local one, the host's users
 * become federated users (`user@host`), and this server's users (federated there) become users.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { ActorType } from '../../domain/constants.js';
import { notFound, proxiedRefusal, remoteUnreachable } from '../../domain/errors.js';
import { ownRemote, parseCloudId, parseRemote } from '../../domain/federation/cloud-id.js';
import type { RequestContext } from '../platform/request-context.js';
import type { RoomsService } from '../conversations/rooms.js';
import { RemoteUnreachable, type FederationClient } from './remote-client.js';

/** A host's answer mapped for this server: status, OCS `data`, and the headers passed on. */
export interface ProxiedAnswer {
  proxied: true;
  status: number;
  data: unknown;
  headers: Record<string, string>;
}

/** Chat headers of the host's answer passed on to the client. */
const PASSED_HEADERS = ['X-Chat-Last-Given', 'X-Chat-Last-Common-Read'];

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FederationProxy {
  private readonly ownRemote: string;

  constructor(
    private readonly repos: Repositories,
    private readonly client: FederationClient,
    baseUrl: string,
    private readonly rooms: RoomsService,
  ) {
    this.ownRemote = ownRemote(baseUrl).toLowerCase();
  }

  /**
   * Forwards `path` (after `/ocs/v2.php/apps/spreed/api/`, `{token}` for the host's token) for
   * the caller's accepted invitation to `room`; a caller without one is 404 `room`.
   */
  async forward(
    ctx: RequestContext,
    room: RoomRow,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    opts: { query?: Record<string, string | number>; body?: unknown; timeoutMs?: number } = {},
  ): Promise<ProxiedAnswer> {
    const inv = await this.invitationOf(ctx, room);
    if (!inv) throw notFound('room');
    let answer;
    try {
      answer = await this.client.ocs(
        this.host(room),
        method,
        path.replace('{token}', encodeURIComponent(room.remote_token)),
        { cloudId: inv.local_cloud_id, secret: inv.access_token },
        opts,
      );
    } catch (e) {
      if (e instanceof RemoteUnreachable) throw remoteUnreachable();
      throw e;
    }
    const headers: Record<string, string> = {};
    for (const h of PASSED_HEADERS) {
      const v = answer.headers.get(h);
      if (v !== null && /^-?\d+$/.test(v)) headers[h] = v;
    }
    if (answer.status === 304) return { proxied: true, status: 304, data: null, headers };
    const ocs = (answer.body as { ocs?: { data?: unknown } } | undefined)?.ocs;
    if (!ocs || answer.status >= 500) throw remoteUnreachable();
    if (answer.status >= 400) throw proxiedRefusal(answer.status, ocs.data);
    return { proxied: true, status: answer.status, data: ocs.data ?? null, headers };
  }

  /**
   * Keeps the read state of the host's conversation record (`data`, answered to a read marker)
   * as this attendee's unread counters here (docs/reference/federation.md#keeping-the-conversation-current);
   * a record without them changes nothing. The room row is touched too: that is what makes the
   * conversation's kept answers stale (its change-feed topic).
   */
  async keepHostReadRecord(room: RoomRow, attendeeId: number, data: unknown): Promise<void> {
    if (typeof data !== 'object' || data === null) return;
    const r = data as Json;
    const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
    const unread = count(r.unreadMessages);
    const lastRead = count(r.lastReadMessage);
    if (unread === undefined || lastRead === undefined || unread < 0) return;
    await this.keepReadState(room, attendeeId, { unread, mention: r.unreadMention === true, mentionDirect: r.unreadMentionDirect === true, lastRead });
  }

  /** This attendee's unread counters here, as the host's answer told them. */
  async keepReadState(room: RoomRow, attendeeId: number, s: { unread: number; mention: boolean; mentionDirect: boolean; lastRead: number }): Promise<void> {
    if (!Number.isSafeInteger(s.lastRead)) return;
    // One transaction: the counters and the change-feed entry that makes kept answers stale
    // become visible together.
    await this.rooms.lockedTransaction(room.id, async (repos) => {
      await repos.federationSync.setUnread({
        attendee_id: attendeeId,
        room_id: room.id,
        unread_messages: s.unread,
        unread_mention: s.mention ? 1 : 0,
        unread_mention_direct: s.mentionDirect ? 1 : 0,
        last_read_message: s.lastRead,
      });
      await repos.rooms.touchRow(room.id);
    });
  }

  /**
   * The host's image of the conversation (Talk's proxied AvatarController), for a caller with an
   * accepted invitation; PNG and JPEG only (an SVG from another server is not served from this
   * origin). Undefined when there is none or the host does not answer: the caller falls back to
   * the generated image.
   */
  async avatar(ctx: RequestContext, room: RoomRow, dark: boolean): Promise<{ body: Buffer; contentType: string } | undefined> {
    const inv = await this.invitationOf(ctx, room);
    if (!inv) return undefined;
    try {
      const path = `v1/room/${encodeURIComponent(room.remote_token)}/avatar${dark ? '/dark' : ''}`;
      const a = await this.client.ocsBytes(this.host(room), path, { cloudId: inv.local_cloud_id, secret: inv.access_token });
      return a.status === 200 && (a.contentType === 'image/png' || a.contentType === 'image/jpeg') ? { body: a.body, contentType: a.contentType } : undefined;
    } catch (e) {
      if (e instanceof RemoteUnreachable) return undefined;
      throw e;
    }
  }

  // ---- mapping the host's records (Talk's UserConverter) ----

  /** An actor of the host as this server names it. */
  actor(room: RoomRow, type: unknown, id: unknown): { type: string; id: string } | undefined {
    if (typeof type !== 'string' || typeof id !== 'string') return undefined;
    if (type === ActorType.USERS) return { type: ActorType.FEDERATED_USERS, id: `${id}@${this.host(room)}` };
    if (type === ActorType.FEDERATED_USERS) {
      const cloud = parseCloudId(id);
      if (cloud && cloud.remote.toLowerCase() === this.ownRemote) return { type: ActorType.USERS, id: cloud.user };
    }
    return { type, id };
  }

  /** `entry` with the actor named by `typeKey`/`idKey` mapped (a copy; anything else as it came). */
  private withActor(room: RoomRow, entry: unknown, typeKey = 'actorType', idKey = 'actorId'): unknown {
    if (!isRecord(entry)) return entry;
    const out: Json = { ...entry };
    const mapped = this.actor(room, out[typeKey], out[idKey]);
    if (mapped) {
      out[typeKey] = mapped.type;
      out[idKey] = mapped.id;
    }
    return out;
  }

  /** A chat message of the host mapped for this server (its parent and rich parameters too). */
  message(room: RoomRow, m: unknown): unknown {
    if (!isRecord(m)) return m;
    const out = this.withActor(room, this.withActor(room, { ...m, token: room.token }), 'lastEditActorType', 'lastEditActorId') as Json;
    if (isRecord(out.messageParameters)) {
      const params: Json = {};
      for (const [key, p] of Object.entries(out.messageParameters)) params[key] = this.richParameter(room, p);
      out.messageParameters = params;
    }
    if (out.parent !== undefined) out.parent = this.message(room, out.parent);
    return out;
  }

  /**
   * A rich object parameter of the host's message: a user of the host names the host as its
   * server, a user of this server loses it, and the conversation itself is the local token.
   */
  private richParameter(room: RoomRow, p: unknown): unknown {
    if (!isRecord(p)) return p;
    if (p.type === 'user' && typeof p.id === 'string') {
      if (p.server === undefined) return { ...p, server: this.host(room) };
      const cloud = typeof p.server === 'string' ? parseCloudId(`${p.id}@${p.server}`) : undefined;
      if (cloud && cloud.remote.toLowerCase() === this.ownRemote) {
        const { server: _server, ...local } = p;
        return local;
      }
    }
    if (p.type === 'call' && p.id === room.remote_token) return { ...p, id: room.token };
    return p;
  }

  /** The host's reactions map (`{emoji: [{actorType, actorId, ...}]}`) mapped for this server. */
  reactions(room: RoomRow, data: unknown): unknown {
    if (!isRecord(data)) return data;
    const out: Json = {};
    for (const [emoji, list] of Object.entries(data)) out[emoji] = Array.isArray(list) ? list.map((r) => this.withActor(room, r)) : list;
    return out;
  }

  /**
   * The host's mention suggestions mapped for this server: `source` and `id` as actors are;
   * `mentionId` stays the host's, since what the user writes with it is sent to the host.
   */
  mentions(room: RoomRow, data: unknown): unknown {
    return Array.isArray(data) ? data.map((m) => this.withActor(room, m, 'source', 'id')) : data;
  }

  /** A poll (or a list of drafts) of the host mapped for this server: its author and the voters. */
  polls(room: RoomRow, data: unknown): unknown {
    if (Array.isArray(data)) return data.map((p) => this.polls(room, p));
    const out = this.withActor(room, data);
    if (isRecord(out) && Array.isArray(out.details)) out.details = out.details.map((v) => this.withActor(room, v));
    return out;
  }

  /** The caller's accepted invitation to `room` (its cloud id and shared secret), if any. */
  private invitationOf(ctx: RequestContext, room: RoomRow) {
    return ctx.userId !== undefined ? this.repos.federationInvitations.forLocalRoom(ctx.userId, room.id) : Promise.resolve(undefined);
  }

  private host(room: RoomRow): string {
    return parseRemote(room.remote_server)?.remote ?? room.remote_server;
  }

  /** The host's participant list mapped for this server (docs/reference/federation.md#proxied-requests). */
  async participants(ctx: RequestContext, room: RoomRow): Promise<Json[]> {
    const answer = await this.forward(ctx, room, 'GET', 'v4/room/{token}/participants');
    if (!Array.isArray(answer.data)) throw remoteUnreachable();
    return answer.data.filter(isRecord).map((p) => {
      const out = this.withActor(room, p) as Json;
      if ('roomToken' in out) out.roomToken = room.token;
      return out;
    });
  }

  messages(room: RoomRow, data: unknown): unknown {
    return Array.isArray(data) ? data.map((m) => this.message(room, m)) : this.message(room, data);
  }
}
