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

export class FederationProxy {
  private readonly ownRemote: string;

  constructor(
    private readonly repos: Repositories,
    private readonly client: FederationClient,
    baseUrl: string,
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
    const inv = ctx.userId !== undefined ? await this.repos.federationInvitations.forLocalRoom(ctx.userId, room.id) : undefined;
    if (!inv) throw notFound('room');
    const remote = parseRemote(room.remote_server)?.remote ?? room.remote_server;
    let answer;
    try {
      answer = await this.client.ocs(
        remote,
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

  // ---- mapping the host's records (Talk's UserConverter) ----

  /** An actor of the host as this server names it. */
  actor(room: RoomRow, type: unknown, id: unknown): { type: string; id: string } | undefined {
    if (typeof type !== 'string' || typeof id !== 'string') return undefined;
    if (type === ActorType.USERS) {
      const host = parseRemote(room.remote_server)?.remote ?? room.remote_server;
      return { type: ActorType.FEDERATED_USERS, id: `${id}@${host}` };
    }
    if (type === ActorType.FEDERATED_USERS) {
      const cloud = parseCloudId(id);
      if (cloud && cloud.remote.toLowerCase() === this.ownRemote) return { type: ActorType.USERS, id: cloud.user };
    }
    return { type, id };
  }

  /** A chat message of the host mapped for this server (its parent too). */
  message(room: RoomRow, m: unknown): unknown {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return m;
    const out: Json = { ...(m as Json), token: room.token };
    for (const [typeKey, idKey] of [
      ['actorType', 'actorId'],
      ['lastEditActorType', 'lastEditActorId'],
    ]) {
      const mapped = this.actor(room, out[typeKey], out[idKey]);
      if (mapped) {
        out[typeKey] = mapped.type;
        out[idKey] = mapped.id;
      }
    }
    if (out.parent !== undefined) out.parent = this.message(room, out.parent);
    return out;
  }

  /** The host's participant list mapped for this server (docs/reference/federation.md#proxied-requests). */
  async participants(ctx: RequestContext, room: RoomRow): Promise<Json[]> {
    const answer = await this.forward(ctx, room, 'GET', 'v4/room/{token}/participants');
    if (!Array.isArray(answer.data)) throw remoteUnreachable();
    return answer.data
      .filter((p): p is Json => typeof p === 'object' && p !== null && !Array.isArray(p))
      .map((p) => {
        const out: Json = { ...p };
        if ('roomToken' in out) out.roomToken = room.token;
        const mapped = this.actor(room, out.actorType, out.actorId);
        if (mapped) {
          out.actorType = mapped.type;
          out.actorId = mapped.id;
        }
        return out;
      });
  }

  messages(room: RoomRow, data: unknown): unknown {
    return Array.isArray(data) ? data.map((m) => this.message(room, m)) : this.message(room, data);
  }
}
