#!/usr/bin/env node
/**
 * A large chunked upload (docs/benchmarks.md "A 100 MB chunked upload"; after `npm run build`):
 * BENCH_MB (100) MB of random bytes uploaded as the Talk apps do it, Nextcloud's chunking v2
 * (docs/files.md): MKCOL of an upload folder, PUT of BENCH_CHUNK_MB (10) MB chunks one after the
 * other, MOVE of `.file` to the destination with OC-Total-Length. Its baseline, measured in the
 * same run, alternating with it: the same bytes written to a file on the same disk (the server's
 * data directory) in the same pieces by this process, then fsync'd, as durable as the upload.
 * Prints, for BENCH_ROUNDS (3) rounds, both times, the server's CPU time during the upload, and
 * the ratio `direct / upload` (target: at least 0.5), then the median ratio.
 *
 * The server is the build (dist/main.js serve) in its own process, on a fresh SQLite data
 * directory, or on PostgreSQL with BENCH_DATABASE_URL (a fresh schema, dropped afterwards).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { basic, closeSeedServices, freshDatabase, openSeedServices, startServer } from './lib/server.mjs';
import { cpuSeconds } from './lib/process-cpu.mjs';

const MB = Number(process.env.BENCH_MB ?? 100);
const CHUNK_MB = Number(process.env.BENCH_CHUNK_MB ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const USER = { user: 'bench-upload', password: 'bench-upload-password-1' };

/** The same bytes written to `file` in the same pieces, then fsync'd. */
async function direct(file, pieces) {
  const started = performance.now();
  const fd = await fs.promises.open(file, 'w');
  try {
    for (const p of pieces) await fd.write(p);
    await fd.sync();
  } finally {
    await fd.close();
  }
  const ms = performance.now() - started;
  await fs.promises.rm(file);
  return ms;
}

/** The chunked upload of `pieces` to /bench-<round>.bin; its time in ms. */
async function upload(url, pieces, round) {
  const auth = basic(USER.user, USER.password);
  const destination = `${url}/remote.php/dav/files/${USER.user}/bench-${round}.bin`;
  const folder = `${url}/remote.php/dav/uploads/${USER.user}/bench-upload-${round}`;
  const expect = async (res, statuses, what) => {
    await res.arrayBuffer();
    if (!statuses.includes(res.status)) throw new Error(`${what} answered ${res.status}`);
  };
  const total = String(pieces.reduce((sum, p) => sum + p.length, 0));
  const started = performance.now();
  await expect(await fetch(folder, { method: 'MKCOL', headers: { Authorization: auth, Destination: destination } }), [201], 'MKCOL');
  for (let i = 0; i < pieces.length; i++) {
    const res = await fetch(`${folder}/${String(i + 1).padStart(5, '0')}`, {
      method: 'PUT',
      headers: { Authorization: auth, 'Content-Type': 'application/octet-stream', 'OC-Total-Length': total },
      body: pieces[i],
    });
    await expect(res, [201], `PUT of chunk ${i + 1}`);
  }
  const move = await fetch(`${folder}/.file`, {
    method: 'MOVE',
    headers: { Authorization: auth, Destination: destination, 'OC-Total-Length': total },
  });
  await expect(move, [201, 204], 'MOVE');
  return performance.now() - started;
}

async function main() {
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const { env, dataDir, drop } = await freshDatabase(pgUrl ? 'postgres' : 'sqlite', pgUrl);
  const services = await openSeedServices(env);
  await services.directory.createUser({ id: USER.user, password: USER.password, displayName: 'Bench Upload' });
  await closeSeedServices(services);
  const server = await startServer(env);
  const pieces = Array.from({ length: Math.ceil(MB / CHUNK_MB) }, (_, i) => randomBytes(Math.min(CHUNK_MB, MB - i * CHUNK_MB) * 1024 * 1024));
  const ratios = [];
  try {
    await upload(server.url, pieces.slice(0, 1), 'warm-up');
    for (let round = 0; round < ROUNDS; round++) {
      const load = os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(',');
      const directMs = await direct(path.join(dataDir, `direct-${round}.bin`), pieces);
      const cpu0 = cpuSeconds(server.pid);
      const client0 = process.cpuUsage();
      const uploadMs = await upload(server.url, pieces, round);
      const serverCpuMs = (cpuSeconds(server.pid) - cpu0) * 1000;
      const clientCpu = process.cpuUsage(client0);
      const clientCpuMs = (clientCpu.user + clientCpu.system) / 1000;
      ratios.push(directMs / uploadMs);
      console.log(
        `files-upload loadavg=${load} cpus=${os.cpus().length} db=${pgUrl ? 'postgres' : 'sqlite'} mb=${MB} chunk_mb=${CHUNK_MB} direct=${directMs.toFixed(0)}ms upload=${uploadMs.toFixed(0)}ms server_cpu=${serverCpuMs.toFixed(0)}ms client_cpu=${clientCpuMs.toFixed(0)}ms ratio=${(directMs / uploadMs).toFixed(2)}`,
      );
    }
    const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
    console.log(`files-upload median ratio=${median.toFixed(2)} bar=>=0.50 ${median >= 0.5 ? 'ok' : 'UNDER'}`);
  } finally {
    await server.stop();
    await drop();
  }
}

await main();
