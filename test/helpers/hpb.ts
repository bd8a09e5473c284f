/**
 * Debian's nextcloud-spreed-signaling server (docs/signaling.md) on loopback for tests: no NATS
 * server, no Janus, one backend. `missingHpb` is the reason to skip when the binary is absent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './parley.js';

export const HPB_BINARY = '/usr/bin/nextcloud-spreed-signaling-server';

/** Why signaling-server suites are skipped here (false: the binary is installed). */
export const missingHpb: string | false = fs.existsSync(HPB_BINARY)
  ? false
  : `${HPB_BINARY} is not installed (apt-get install --no-install-recommends nextcloud-spreed-signaling; .ci/run does it)`;

export interface Hpb {
  /** http://127.0.0.1:<port> (its WebSocket is at ws://…/spreed). */
  url: string;
  log: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the signaling server with one backend: `backendUrl` (Parley's address, as the server
 * compares it with `Spreed-Signaling-Backend` and the hello's auth.url) and `secret`.
 */
export async function startHpb(backendUrl: string, secret: string): Promise<Hpb> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-hpb-'));
  const conf = [
    '[http]',
    `listen = 127.0.0.1:${port}`,
    '[sessions]',
    'hashkey = 0123456789abcdef0123456789abcdef',
    'blockkey = abcdef0123456789',
    '[clients]',
    'internalsecret = internal-secret-for-tests',
    '[backend]',
    'backends = parley',
    'timeout = 10',
    '[parley]',
    `url = ${backendUrl.replace(/\/*$/, '/')}`,
    `secret = ${secret}`,
    '[nats]',
    'url = :loopback:',
    '[mcu]',
    'type =',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'server.conf'), conf);
  const child: ChildProcess = spawn(HPB_BINARY, ['-config', path.join(dir, 'server.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (c) => (log += c));
  child.stderr!.on('data', (c) => (log += c));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/v1/welcome`)).ok) return { url, log: () => log, stop };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > until) {
      await stop();
      throw new Error(`signaling server did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
