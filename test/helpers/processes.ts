/**
 * Real `parley serve` processes for tests of several processes on one database, and a free
 * loopback port for servers whose port must be known before they start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const MAIN = path.resolve('src/main.ts');

/** A port nobody listens on right now (for servers that cannot report the port they picked). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface Proc {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Starts `parley serve` on a free port and waits until /status.php answers. */
export async function serve(env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`parley serve exited (${child.exitCode}): ${out}`);
    try {
      if ((await fetch(url + '/status.php')).ok) return { url, child, output: () => out };
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`parley serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops a process started by `serve` (SIGTERM to its own pid) and waits for it to exit. */
export async function stop(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

/** An OCS JSON request against one process. */
export async function ocs(p: Proc, method: string, apiPath: string, auth: string, form?: Record<string, string>) {
  const res = await fetch(`${p.url}/ocs/v2.php${apiPath}${apiPath.includes('?') ? '&' : '?'}format=json`, {
    method,
    headers: {
      'OCS-APIRequest': 'true',
      Authorization: auth,
      ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const text = await res.text();
  return { status: res.status, data: JSON.parse(text).ocs.data };
}
