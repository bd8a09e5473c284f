/**
 * Who Parley federates with (docs/federation.md "Trust"): the trusted servers list (stored, kept
 * by `parley federation:trusted-servers:*` and the admin API behind the admin page,
 * docs/federation.md#the-trusted-servers-api) that limits federation while
 * `federation_only_trusted_servers` is on, and the outbound check every request to another
 * server passes (https and public addresses unless FEDERATION_ALLOW_INSECURE).
 */
import type { FederationTrustedServersRepository } from '../../db/repositories/federation-trusted-servers.js';
import { badRequest, notFound, ocsFailure, ocsNotFound } from '../../domain/errors.js';
import { parseRemote } from '../../domain/federation/cloud-id.js';
import { outboundRefusal, trustedServerName } from '../../domain/federation/rules.js';
import { nowSeconds } from '../../domain/time.js';
import { resolvesInternally } from '../platform/internal-address.js';

/** A trusted server as the admin API shows it (Nextcloud's federation app: `id`, `url`). */
export interface TrustedServer {
  id: number;
  /** The server as stored: `host[:port][/path]`, without its scheme. */
  url: string;
}

const SERVER_SHAPE = 'must name a server as a cloud id does: host[:port][/path]';

export class FederationTrust {
  constructor(
    private readonly repo: FederationTrustedServersRepository,
    /** FEDERATION_ALLOW_INSECURE. */
    readonly allowInsecure: boolean,
  ) {}

  // ---- the trusted servers list ----

  list(): Promise<string[]> {
    return this.repo.list();
  }

  /** Adds a server (`host[:port][/path]`, a scheme is dropped); whether it was new. */
  async add(server: string): Promise<{ server: string; added: boolean }> {
    const name = trustedServerName(server);
    if (!name) throw badRequest('server', `server ${SERVER_SHAPE}`);
    return { server: name, added: (await this.repo.add(name, nowSeconds())) !== undefined };
  }

  // ---- the admin API (docs/federation.md#the-trusted-servers-api) ----

  async entries(): Promise<TrustedServer[]> {
    return (await this.repo.entries()).map((r) => ({ id: r.id, url: r.server }));
  }

  /**
   * Adds a server given as the CLI takes it; one listed already is 409, as Nextcloud's federation
   * app answers (docs/reference/federation.md#trusted-servers). The insert decides, not a read before it.
   */
  async addEntry(url: string): Promise<TrustedServer> {
    const name = trustedServerName(url);
    if (!name) throw ocsFailure(400, 'url', `url ${SERVER_SHAPE}`);
    const id = await this.repo.add(name, nowSeconds());
    if (id === undefined) throw ocsFailure(409, 'url', 'Server is already in the list of trusted servers.');
    return { id, url: name };
  }

  async removeEntry(id: number): Promise<TrustedServer> {
    const server = await this.repo.removeById(id);
    if (server === undefined) throw ocsNotFound('id', `No server found with ID: ${id}`);
    return { id, url: server };
  }

  async remove(server: string): Promise<string> {
    const name = trustedServerName(server);
    if (!name || !(await this.repo.remove(name))) throw notFound('server', `${server} is not a trusted server`);
    return name;
  }

  /** Whether `remote` (a cloud id's remote part) is on the list. */
  async isTrusted(remote: string): Promise<boolean> {
    const name = trustedServerName(remote);
    return name !== undefined && (await this.repo.has(name));
  }

  // ---- outbound requests ----

  /**
   * Why a request to `remote` must not be made now, or undefined when it may: the written form
   * (scheme, address literal) and, unless insecure requests are allowed, what its name resolves to.
   */
  async refusal(remote: string): Promise<'remote' | 'insecure' | 'internal' | undefined> {
    const written = outboundRefusal(remote, this.allowInsecure);
    if (written || this.allowInsecure) return written;
    return (await resolvesInternally(parseRemote(remote)!.host)) ? 'internal' : undefined;
  }
}
