/**
 * A TCP proxy in front of PostgreSQL whose connections can be stalled or slowed: data from the
 * server stops reaching the client while the connection stays open, as on a network path that
 * stopped delivering (no FIN, no RST), or reaches it late, as on a slow path. Used to show that a
 * LISTEN connection which stops delivering is noticed by Parley's own deadline rather than
 * trusted (cache/wake.ts), and that a late notification never shows as a stale answer.
 */
import net from 'node:net';

export interface StallableProxy {
  /** DATABASE_URL through the proxy. */
  url: string;
  /**
   * Stalls every open connection whose client has sent `marker` (e.g. the LISTEN statement):
   * what the server sends is held back from then on. Returns how many were stalled.
   */
  stall(marker: string): number;
  /** Delays what the server sends by `ms`, on every connection (open or to come) whose client sent `marker`. */
  slow(marker: string, ms: number): void;
  close(): Promise<void>;
}

export async function stallableProxy(databaseUrl: string): Promise<StallableProxy> {
  const target = new URL(databaseUrl);
  const pairs = new Set<{ client: net.Socket; server: net.Socket; sent: string; stalled: boolean }>();
  const slowRules: Array<{ marker: string; ms: number }> = [];
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(target.port || 5432), target.hostname);
    const pair = { client, server, sent: '', stalled: false };
    pairs.add(pair);
    client.on('data', (chunk) => {
      // The start of what the client sent (its start-up and first statements, where LISTEN is).
      if (pair.sent.length < 8192) pair.sent += chunk.toString('latin1');
      server.write(chunk);
    });
    // Held back, never dropped: a stalled path delivers nothing, and the connection stays up.
    server.on('data', (chunk) => {
      if (pair.stalled) return;
      const delay = slowRules.find((r) => pair.sent.includes(r.marker))?.ms;
      // Equal delays keep their order (timers of one duration run first in, first out).
      if (delay === undefined) client.write(chunk);
      else setTimeout(() => client.destroyed || client.write(chunk), delay);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('close', end);
    server.on('close', end);
    client.on('error', end);
    server.on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    stall(marker) {
      let n = 0;
      for (const pair of pairs) {
        if (pair.sent.includes(marker) && !pair.stalled) {
          pair.stalled = true;
          n++;
        }
      }
      return n;
    },
    slow(marker, ms) {
      slowRules.push({ marker, ms });
    },
    close: async () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
