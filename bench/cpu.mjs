/**
 * Server CPU per request of bench routes, the measure that holds on a shared, loaded machine
 * where requests per second do not: the same seeds as bench/run.mjs, the built server as its
 * own process, `BENCH_CPU_REQUESTS` (600) requests two at a time after 100 of warm-up, CPU time
 * (user + system) of the server process from /proc/<pid>/stat and, on PostgreSQL, of its
 * backends (bench/lib/process-cpu.mjs); per route, mode (quiet, writer, cookie as in
 * run.mjs) and database, each route beside its baseline in the same round. Prints
 *
 *   cpu <route> <db> <mode> server=<ms/request> backends=<ms/request> statements=<per request> vs-baseline=<baseline ms / route ms>
 *
 * Options: BENCH_DB, BENCH_PG, BENCH_ONLY (routes; their baselines come along), BENCH_MODES
 * (default writer,cookie), BENCH_ROUNDS (3; the median is printed), BENCH_CPU_REQUESTS.
 */
import fs from 'node:fs';
import { chosenDatabases, freshDatabase, median, startServer, statementsSent } from './lib/server.mjs';
import { backendsCpu, backendsCpuDelta, cpuSeconds } from './lib/process-cpu.mjs';
import { prepareWriter } from './lib/writer.mjs';
import { inMode, prepareRoutes, seedRoutes } from './lib/routes.mjs';

const only = (process.env.BENCH_ONLY ?? 'room-list,chat-room-list').split(',').filter(Boolean);
const modes = (process.env.BENCH_MODES ?? 'writer,cookie').split(',').filter(Boolean);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const count = Number(process.env.BENCH_CPU_REQUESTS ?? 600);

const all = [];
for (const f of fs
  .readdirSync(new URL('./routes/', import.meta.url))
  .filter((n) => n.endsWith('.mjs'))
  .sort()) {
  all.push(...(await import(new URL(`./routes/${f}`, import.meta.url))).default);
}
const wanted = all.filter((r) => only.includes(r.name));
const routes = all.filter((r) => wanted.includes(r) || wanted.some((w) => w.vs === r.name));

async function requests(url, req, n) {
  let next = 0;
  const one = async () => {
    while (next < n) {
      next++;
      const res = await fetch(url + req.path, { method: req.method ?? 'GET', headers: req.headers, body: req.body });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${req.path} answered ${res.status}`);
    }
  };
  await Promise.all([one(), one()]);
}

for (const db of chosenDatabases()) {
  const { env, dataDir, drop } = await freshDatabase(db);
  try {
    const seeded = await seedRoutes(env, routes, modes.includes('writer'));
    const server = await startServer(env);
    try {
      const prepared = await prepareRoutes(server.url, dataDir, routes, seeded);
      const writer = modes.includes('writer') ? await prepareWriter(server.url) : undefined;
      for (const mode of modes) {
        const writing = mode === 'writer' ? writer.start(200) : undefined;
        try {
          const per = new Map();
          for (let round = 0; round < rounds; round++) {
            for (const { r, req, cookie } of prepared) {
              const asked = inMode(mode, req, cookie);
              await requests(server.url, asked, 100);
              const q0 = await statementsSent(server.url);
              const s0 = cpuSeconds(server.pid) * 1000;
              const b0 = db === 'postgres' ? await backendsCpu(server.pid) : undefined;
              await requests(server.url, asked, count);
              const s = (cpuSeconds(server.pid) * 1000 - s0) / count;
              const b = b0 ? (backendsCpuDelta(b0, await backendsCpu(server.pid)) * 1000) / count : 0;
              const q = ((await statementsSent(server.url)) - q0) / count;
              if (!per.has(r.name)) per.set(r.name, { server: [], backends: [], statements: [] });
              per.get(r.name).server.push(s);
              per.get(r.name).backends.push(b);
              per.get(r.name).statements.push(q);
            }
          }
          for (const r of wanted) {
            const m = per.get(r.name);
            const s = median(m.server);
            const b = median(m.backends);
            const base = r.vs && per.get(r.vs) ? median(per.get(r.vs).server) + median(per.get(r.vs).backends) : undefined;
            console.log(
              `cpu ${r.name} ${db} ${mode} server=${s.toFixed(2)} backends=${b.toFixed(2)} statements=${median(m.statements).toFixed(1)}` +
                (base !== undefined ? ` vs-baseline=${(base / (s + b)).toFixed(3)} (${r.vs} ${base.toFixed(2)} ms)` : ''),
            );
          }
        } finally {
          if (writing) await writing.stop();
        }
      }
    } finally {
      await server.stop();
    }
  } finally {
    await drop();
  }
}
