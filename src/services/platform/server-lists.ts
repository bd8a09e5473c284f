/**
 * STUN, TURN, signaling and recording server lists (docs/operators.md "Talk commands":
 * `talk:stun:*`, `talk:turn:*`, `talk:signaling:*`, `talk:recording:*`). Each change reads the
 * stored list, edits it and writes it back through AppConfigService.set, the same path as the
 * app-config API, so the registry validates it and the X-Service-Hash changes. A refused change
 * throws a 400 ApiError and stores nothing. Lists handed out never carry a secret in clear.
 */
import { SENSITIVE_MASK } from '../../app-config/registry.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { randomString } from '../../domain/passwords.js';
import type { AppConfigService } from './app-config.js';

export interface TurnServer {
  schemes: string;
  server: string;
  secret: string;
  protocols: string;
}

export interface ServerEntry {
  server: string;
  verify: boolean;
}

export interface ServerList {
  servers: ServerEntry[];
  secret: string;
}

/** Keys holding `{servers, secret}` lists. */
export type ServerListKey = 'signaling_servers' | 'recording_servers';

const TURN_SCHEMES = ['turn', 'turns', 'turn,turns'];
const TURN_PROTOCOLS = ['udp', 'tcp', 'udp,tcp'];

export class ServerListsService {
  constructor(private readonly appConfig: AppConfigService) {}

  async stunServers(): Promise<string[]> {
    return (await this.appConfig.snapshot()).list('stun_servers');
  }

  async addStun(server: string): Promise<void> {
    const list = await this.stunServers();
    if (list.includes(server)) throw badRequest('server', `${server} is already configured`);
    await this.appConfig.set('stun_servers', [...list, server]);
  }

  async deleteStun(server: string): Promise<void> {
    const list = await this.stunServers();
    if (!list.includes(server)) throw notFound('server', `There is no STUN server ${server}`);
    await this.appConfig.set(
      'stun_servers',
      list.filter((s) => s !== server),
    );
  }

  private async turnRaw(): Promise<TurnServer[]> {
    const v = (await this.appConfig.snapshot()).json<unknown>('turn_servers', []);
    return Array.isArray(v) ? (v as TurnServer[]) : [];
  }

  /** TURN servers with their secrets masked. */
  async turnServers(): Promise<TurnServer[]> {
    return (await this.turnRaw()).map((t) => ({ ...t, secret: t.secret ? SENSITIVE_MASK : '' }));
  }

  /**
   * Adds a TURN server; `secret` or `generateSecret` (exactly one). Returns the generated secret
   * so the operator can configure the TURN server with it.
   */
  async addTurn(schemes: string, server: string, protocols: string, secret: string | undefined, generateSecret: boolean): Promise<string | undefined> {
    if (!TURN_SCHEMES.includes(schemes)) throw badRequest('schemes', `schemes must be one of ${TURN_SCHEMES.join(', ')}`);
    if (!TURN_PROTOCOLS.includes(protocols)) throw badRequest('protocols', `protocols must be one of ${TURN_PROTOCOLS.join(', ')}`);
    if (/^turns?:/i.test(server)) throw badRequest('server', 'give the server as host:port, without a turn: or turns: prefix');
    if ((secret === undefined || secret === '') === !generateSecret) throw badRequest('secret', 'give either --secret or --generate-secret');
    const value = generateSecret ? randomString(32) : secret!;
    const list = await this.turnRaw();
    if (list.some((t) => t.server === server && t.schemes === schemes && t.protocols === protocols)) {
      throw badRequest('server', `${schemes} ${server} ${protocols} is already configured`);
    }
    await this.appConfig.set('turn_servers', [...list, { schemes, server, secret: value, protocols }]);
    return generateSecret ? value : undefined;
  }

  async deleteTurn(schemes: string, server: string, protocols: string): Promise<void> {
    const list = await this.turnRaw();
    const rest = list.filter((t) => !(t.server === server && t.schemes === schemes && t.protocols === protocols));
    if (rest.length === list.length) throw notFound('server', `There is no TURN server ${schemes} ${server} ${protocols}`);
    await this.appConfig.set('turn_servers', rest);
  }

  private async listRaw(key: ServerListKey): Promise<ServerList> {
    const v = (await this.appConfig.snapshot()).json<unknown>(key, {});
    const obj = v && typeof v === 'object' && !Array.isArray(v) ? (v as Partial<ServerList>) : {};
    return { servers: Array.isArray(obj.servers) ? obj.servers : [], secret: typeof obj.secret === 'string' ? obj.secret : '' };
  }

  /** Signaling or recording servers with the shared secret masked. */
  async servers(key: ServerListKey): Promise<ServerList> {
    const list = await this.listRaw(key);
    return { servers: list.servers, secret: list.secret ? SENSITIVE_MASK : '' };
  }

  /** Adds a server; `secret` becomes the shared secret of all servers of the list (as in Talk). */
  async addServer(key: ServerListKey, server: string, secret: string, verify: boolean): Promise<void> {
    if (secret === '') throw badRequest('secret', 'the shared secret must not be empty');
    const list = await this.listRaw(key);
    if (list.servers.some((s) => s.server === server)) throw badRequest('server', `${server} is already configured`);
    await this.appConfig.set(key, { servers: [...list.servers, { server, verify }], secret });
  }

  async deleteServer(key: ServerListKey, server: string): Promise<void> {
    const list = await this.listRaw(key);
    const rest = list.servers.filter((s) => s.server !== server);
    if (rest.length === list.servers.length) throw notFound('server', `There is no server ${server}`);
    await this.appConfig.set(key, { servers: rest, secret: list.secret });
  }
}
