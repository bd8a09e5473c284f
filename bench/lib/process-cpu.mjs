/**
 * CPU time the bench reads off processes (Linux /proc): the server's, and on PostgreSQL that of
 * the database backends serving its connections, which the server process's own CPU does not
 * include.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import pg from 'pg';

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (0 once gone). */
export function cpuSeconds(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const fields = stat.split(') ')[1].split(' ');
  // Fields after "(comm) ": state is [0], utime [11], stime [12] (clock ticks, 100 per second).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The PostgreSQL backends serving `serverPid`'s connections: its local ports to the database
 * (`ss`), matched with pg_stat_activity.client_port. Their CPU is the database's share of a
 * request, which the server process's own CPU does not include.
 */
const pgPort = process.env.BENCH_PG ? new URL(process.env.BENCH_PG).port || '5432' : '5432';

export async function backendPids(serverPid) {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' });
  const ports = out
    .split('\n')
    .filter((l) => l.includes(`pid=${serverPid},`))
    .map((l) => Number(new RegExp(`:(\\d+)\\s+\\S+:${pgPort}\\s`).exec(l)?.[1]))
    .filter(Boolean);
  if (ports.length === 0) return [];
  const client = new pg.Client({ connectionString: process.env.BENCH_PG });
  await client.connect();
  try {
    const r = await client.query('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
    return r.rows.map((x) => x.pid);
  } finally {
    await client.end();
  }
}

/** CPU seconds so far of each backend serving `serverPid`'s connections (pid → seconds). */
export async function backendsCpu(serverPid) {
  return new Map((await backendPids(serverPid)).map((pid) => [pid, cpuSeconds(pid)]));
}

/** The backends' CPU seconds between two `backendsCpu` readings: those seen at the end, new ones from zero (one that ended between is missed). */
export function backendsCpuDelta(before, after) {
  let sum = 0;
  for (const [pid, cpu] of after) sum += cpu - (before.get(pid) ?? 0);
  return sum;
}
