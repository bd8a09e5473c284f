/**
 * Graceful overload (http/load-shedding.ts): while the event loop is late past the threshold
 * with work queued, requests are answered 503 with Retry-After before any work (OCS routes in
 * the OCS envelope), except health and monitoring, and GET /metrics and the log say why; once
 * the pressure is gone, requests are served again; and normal load under the default
 * thresholds is never shed: not a fresh server's first client, not a thousand idle long-polls,
 * not ten clients answered within milliseconds. The pressure here is real: the server runs in
 * this process, so busy-waiting blocks its event loop exactly as CPU-bound request work would,
 * and eighty clients in another process keep requests queued meanwhile.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { dropSchema } from '../src/db/database.js';
import { loadSettings, SettingsError } from '../src/settings.js';
import { useParley } from './helpers/fixtures.js';
import { admin, as, basic, dialects, freshEnv } from './helpers/parley.js';
import { serve, stop, type Proc } from './helpers/processes.js';
import { AdmissionRate } from '../src/http/admission-rate.js';

/** Keeps the event loop busy for `ms` (what an overloaded process does to its timers). */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: no timer, no I/O callback can run
  }
}

const CAPABILITIES = '/cloud/capabilities';

/**
 * Eighty clients sending requests back to back to `url` (queued work) until stopped, from a
 * process of their own: their requests keep arriving while this process's loop is busy, as a
 * real client's would.
 */
function queuedWork(url: string): () => Promise<void> {
  const script = `
    const url = process.argv[1];
    for (let i = 0; i < 80; i++) (async () => {
      for (;;) { try { await (await fetch(url + '/hello')).arrayBuffer(); } catch { await new Promise((r) => setTimeout(r, 10)); } }
    })();`;
  const child = spawn(process.execPath, ['-e', script, url], { stdio: 'ignore' });
  return async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill();
    await exited;
  };
}

/** The default thresholds (the suites' environment turns shedding off, helpers/parley.ts). */
const DEFAULTS = {
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '',
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: '',
  OVERLOAD_MAX_HEAP_PERCENT: '',
  OVERLOAD_MAX_DB_WAITING: '',
  OVERLOAD_MAX_DB_WAIT_MS: '',
};

/** Settings of the suites that overload the server on purpose: no warm-up, and a low bar for queued work (the requests here are small). */
const OVERLOADED = { OVERLOAD_WARMUP_SECONDS: '0', OVERLOAD_MIN_QUEUED_MS: '20' };

/**
 * Sends `requests` while the event loop is kept busy (45 ms of every 50: what a process with
 * more CPU-bound work than it can do looks like) and requests queue, until the server shed one;
 * the load stops then.
 */
async function underPressure<T>(url: string, requests: () => Promise<T>, shed: (r: T) => boolean): Promise<T> {
  const load = setInterval(() => blockEventLoop(45), 50);
  const stopWork = queuedWork(url);
  try {
    for (let attempt = 0; attempt < 60; attempt++) {
      const r = await requests();
      if (shed(r)) return r;
      await new Promise((done) => setTimeout(done, 50));
    }
  } finally {
    clearInterval(load);
    await stopWork();
  }
  assert.fail('3 s of a busy event loop with queued work never made the server shed a request');
}

for (const dialect of dialects()) {
  describe(`load shedding past the event-loop delay threshold [${dialect}]`, () => {
    // A low threshold sampled every 50 ms: a loop kept busy is far past it, while the delays of a
    // busy shared test machine stay below it.
    let log = '';
    const stream = new PassThrough();
    stream.on('data', (c) => (log += c));
    const t = useParley(dialect, {
      env: { ...OVERLOADED, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '20', OVERLOAD_SAMPLE_MS: '50', OVERLOAD_RETRY_AFTER_SECONDS: '7', LOG_LEVEL: 'info' },
      logStream: stream,
    });

    it('answers 503 with Retry-After in the OCS envelope while the event loop is late with work queued; /metrics and the log say why', async () => {
      const r = await underPressure(
        t.p.url,
        () => t.call('GET', CAPABILITIES, { as: admin }),
        (res) => res.status !== 200,
      );
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '7');
      assert.equal(r.meta.status, 'failure');
      assert.equal(r.meta.statuscode, 503);
      assert.equal(r.data.error, 'overloaded');
      const metrics = await (await fetch(`${t.p.url}/metrics`)).text();
      assert.match(metrics, /^parley_shed_requests_total\{reason="event_loop_delay"\} [1-9]\d*$/m);
      const lines = log.split('\n').filter((l) => l.includes('overloaded: shedding requests'));
      assert.ok(lines.length > 0, 'the log says shedding started');
      const line = JSON.parse(lines[0]!);
      assert.equal(line.level, 40);
      assert.deepEqual(line.reasons, ['event_loop_delay']);
      assert.ok(line.delayMs > 20 && line.concurrency >= 2, lines[0]);
      // And when it stops.
      for (let i = 0; i < 100 && !log.includes('no longer shedding requests'); i++) await new Promise((done) => setTimeout(done, 50));
      assert.ok(log.includes('no longer shedding requests'), 'the log says shedding stopped');
    });

    it('sheds non-OCS routes with the same data, and never /status.php or /metrics', async () => {
      const [hello, status, metrics] = await underPressure(
        t.p.url,
        () => Promise.all([fetch(`${t.p.url}/hello`), fetch(`${t.p.url}/status.php`), fetch(`${t.p.url}/metrics`)]),
        ([h]) => h.status !== 200,
      );
      assert.equal(hello.status, 503);
      assert.equal(hello.headers.get('retry-after'), '7');
      assert.equal(((await hello.json()) as { error: string }).error, 'overloaded');
      assert.equal(status.status, 200);
      assert.equal(((await status.json()) as { installed: boolean }).installed, true);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /parley_http_requests_total\{[^}]*status="503"\} \d+/);
    });

    it('GET /metrics says every request is shed while the loop is late, and no longer after', async () => {
      const shown = await underPressure(
        t.p.url,
        async () => (await fetch(`${t.p.url}/metrics`)).text(),
        (text) => /^parley_shedding_all 1$/m.test(text),
      );
      // The utilization signal is off in this suite: no admission rate is ever in force.
      assert.match(shown, /^parley_admission_limited 0$/m);
      let text = shown;
      for (let i = 0; i < 100 && /^parley_shedding_all 1$/m.test(text); i++) {
        await new Promise((done) => setTimeout(done, 50));
        text = await (await fetch(`${t.p.url}/metrics`)).text();
      }
      assert.match(text, /^parley_shedding_all 0$/m);
    });

    it('serves again once the pressure is gone', async () => {
      await underPressure(
        t.p.url,
        () => t.call('GET', CAPABILITIES, { as: admin }),
        (res) => res.status === 503,
      );
      // No stall any more: within a few samples the loop is on time and requests pass.
      let r = await t.call('GET', CAPABILITIES, { as: admin });
      for (let i = 0; i < 100 && r.status === 503; i++) {
        await new Promise((done) => setTimeout(done, 50));
        r = await t.call('GET', CAPABILITIES, { as: admin });
      }
      assert.equal(r.status, 200);
    });
  });

  describe(`load shedding past the event-loop utilization threshold [${dialect}]`, () => {
    // Only utilization (the suites start with every signal off), sampled every 50 ms: a loop
    // busy 45 ms of every 50 is at 90%.
    const t = useParley(dialect, { env: { ...OVERLOADED, OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: '80', OVERLOAD_SAMPLE_MS: '50' } });

    it('answers 503 while the event loop is busy past the threshold, and serves again after', async () => {
      // Five at a time: a saturated process still admits about one request per sample (its
      // admission rate's floor), so requests one at a time, 50 ms apart, may all pass.
      const batch = await underPressure(
        t.p.url,
        () => Promise.all(Array.from({ length: 5 }, () => t.call('GET', CAPABILITIES, { as: admin }))),
        (rs) => rs.some((res) => res.status !== 200),
      );
      const r = batch.find((res) => res.status !== 200)!;
      assert.equal(r.status, 503);
      assert.equal(r.data.error, 'overloaded');
      await new Promise((done) => setTimeout(done, 200));
      assert.equal((await t.call('GET', CAPABILITIES, { as: admin })).status, 200);
    });

    it('keeps serving some requests while saturated, at a rate, instead of shedding them all', async () => {
      // The loop stays busy 45 ms of every 50 for three seconds: every sample is past 80%. Requests
      // go 5 at a time; after the first 503 the process still lets some in at its admission
      // rate (at least one per sample) and sheds the rest.
      // GET /metrics (never shed) is read alongside: it shows the rate while one is in force.
      const load = setInterval(() => blockEventLoop(45), 50);
      const stopWork = queuedWork(t.p.url);
      const after: number[] = [];
      const rates: number[] = [];
      let shedding = false;
      // /hello answered 200 so far, by the server's own count: the 80 queued clients compete
      // for the same admissions as this loop's requests, so the rate is seen in the server's count.
      const served = (text: string) => Number(/^parley_http_requests_total\{method="GET",route="\/hello",status="200"\} (\S+)$/m.exec(text)?.[1] ?? 0);
      let servedAtFirstShed = 0;
      let servedAtEnd = 0;
      try {
        const until = performance.now() + 3000;
        while (performance.now() < until) {
          const [metrics, ...batch] = await Promise.all([fetch(`${t.p.url}/metrics`), ...Array.from({ length: 5 }, () => fetch(`${t.p.url}/hello`))]);
          const text = await metrics.text();
          if (/^parley_admission_limited 1$/m.test(text)) rates.push(Number(/^parley_admission_rate (\S+)$/m.exec(text)?.[1]));
          for (const res of batch) {
            await res.arrayBuffer();
            if (shedding) after.push(res.status);
            if (res.status === 503 && !shedding) {
              shedding = true;
              servedAtFirstShed = served(text);
            }
          }
          servedAtEnd = served(text);
        }
      } finally {
        clearInterval(load);
        await stopWork();
      }
      assert.ok(rates.length > 0, 'GET /metrics never showed an admission rate in force');
      assert.ok(
        rates.every((r) => r > 0),
        `rates shown: ${rates.join(', ')}`,
      );
      // Idle samples refuse nothing: the rate is lifted and the gauge says so.
      await new Promise((done) => setTimeout(done, 300));
      const calm = await (await fetch(`${t.p.url}/metrics`)).text();
      assert.match(calm, /^parley_admission_limited 0$/m);
      assert.doesNotMatch(calm, /^parley_admission_rate /m);
      assert.match(calm, /^parley_shedding_all 0$/m);
      assert.ok(shedding, 'a saturated loop never shed');
      assert.ok(after.includes(503), 'the load was not shed once saturated');
      assert.ok(servedAtEnd > servedAtFirstShed, `every request after the first 503 was shed (${after.length} of this loop's; ${servedAtEnd} served in all)`);
      assert.deepEqual(
        after.filter((st) => st !== 200 && st !== 503),
        [],
      );
    });
  });

  describe(`no shedding under normal load with the default thresholds [${dialect}]`, () => {
    // The suites' environment turns shedding off (helpers/parley.ts): back to the defaults, but
    // no warm-up, so that what keeps these from being shed is the rule that a busy loop
    // answering fast is not overloaded.
    const t = useParley(dialect, { env: { ...DEFAULTS, OVERLOAD_WARMUP_SECONDS: '0' }, users: ['alice'] });

    it('answers 300 requests, 10 at a time, without a 503 (a loop kept busy by requests answered fast)', async () => {
      const room = await t.call('POST', '/apps/spreed/api/v4/room', { as: admin, body: { roomType: 2, roomName: 'Busy' } });
      assert.equal(room.status, 201);
      const paths = [CAPABILITIES, '/apps/spreed/api/v4/room', `/apps/spreed/api/v4/room/${room.data.token}/participants`];
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => t.call('GET', paths[(i + k) % paths.length]!, { as: admin })));
        statuses.push(...batch.map((r) => r.status));
      }
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
      );
    });

    it('never sheds 1,000 long-polls opened at once (idle waits are not queued work)', async () => {
      const room = await t.call('POST', '/apps/spreed/api/v4/room', { as: as('alice'), body: { roomType: 2, roomName: 'Waiting' } });
      assert.equal(room.status, 201, room.text);
      const token = room.data.token as string;
      const chat = `/apps/spreed/api/v1/chat/${token}`;
      const first = await t.call('GET', chat, { as: as('alice'), query: { lookIntoFuture: 0, limit: 1 } });
      const lastKnown = String(first.data[0].id);
      const polls = Array.from({ length: 1000 }, () =>
        t.call('GET', chat, { as: as('alice'), query: { lookIntoFuture: 1, lastKnownMessageId: lastKnown, timeout: 30, setReadMarker: 0 } }),
      );
      // Once they all wait (or some answered early), a message releases them.
      const until = Date.now() + 30_000;
      while (t.services.db.wake.waiting < 1000 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      const posted = await t.call('POST', chat, { as: as('alice'), body: { message: 'wake up' } });
      assert.equal(posted.status, 201, posted.text);
      const statuses = (await Promise.all(polls)).map((r) => r.status);
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
      );
      const metrics = await (await fetch(`${t.p.url}/metrics`)).text();
      assert.doesNotMatch(metrics, /^parley_shed_requests_total\{[^}]*\} [1-9]/m);
    });
  });
}

for (const dialect of dialects()) {
  describe(`a fresh server serves its first client [${dialect}]`, () => {
    for (const [what, extra] of [
      ['with the default warm-up', {}],
      ['without a warm-up (a single client is never queued work)', { OVERLOAD_WARMUP_SECONDS: '0' }],
    ] as const) {
      it(`answers one client's first 40 sequential requests, right after /status.php says ready, without a 503 (${what})`, async () => {
        const env = freshEnv(dialect, { ...DEFAULTS, ...extra });
        let p: Proc | undefined;
        try {
          p = await serve(env);
          const auth = basic(admin.user!, admin.password!);
          const paths = ['/ocs/v2.php/cloud/capabilities', '/ocs/v2.php/apps/spreed/api/v4/room', '/ocs/v2.php/cloud/user', '/index.php/login/v2'];
          const statuses: number[] = [];
          for (let i = 0; i < 40; i++) {
            const path = paths[i % paths.length]!;
            const r = await fetch(`${p.url}${path}`, {
              method: path.includes('login') ? 'POST' : 'GET',
              headers: { 'OCS-APIRequest': 'true', Authorization: auth },
            });
            await r.arrayBuffer();
            statuses.push(r.status);
          }
          assert.deepEqual(
            statuses.filter((s) => s === 503),
            [],
          );
        } finally {
          await stop(p);
          if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
          fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
        }
      });
    }
  });
}

if (dialects().includes('postgres')) {
  describe('load shedding past the PostgreSQL pool queue threshold [postgres]', () => {
    // The suites start with every signal off (helpers/parley.ts): only the pool queue counts.
    const t = useParley('postgres', { env: { OVERLOAD_WARMUP_SECONDS: '0', OVERLOAD_MAX_DB_WAITING: '2' } });

    it('answers 503 with Retry-After while requests queue for a connection, and serves one at a time', async () => {
      // Every connection of the server's pool is busy for a moment (a slow statement each, as a
      // slow query would be), so requests arriving meanwhile queue for a connection. A burst of
      // fast requests alone did not always queue past the threshold on a quiet machine.
      const busy = Array.from({ length: 12 }, () => sql`select pg_sleep(0.4)`.execute(t.services.db.kysely));
      await new Promise((r) => setTimeout(r, 50));
      const burst = await Promise.all(Array.from({ length: 60 }, () => t.call('GET', '/apps/spreed/api/v4/room', { as: admin })));
      await Promise.all(busy);
      const shed = burst.filter((r) => r.status === 503);
      assert.ok(shed.length > 0, 'a burst past the pool queue threshold shed nothing');
      assert.equal(shed[0]!.headers.get('retry-after'), '2');
      assert.equal(shed[0]!.data.error, 'overloaded');
      assert.match(await (await fetch(`${t.p.url}/metrics`)).text(), /^parley_shed_requests_total\{reason="db_queue"\} [1-9]/m);
      assert.deepEqual(
        burst.filter((r) => r.status !== 503 && r.status !== 200).map((r) => r.status),
        [],
      );
      // Without a queue nothing is shed.
      for (let i = 0; i < 5; i++) assert.equal((await t.call('GET', '/apps/spreed/api/v4/room', { as: admin })).status, 200);
    });
  });
}

describe('load shedding past the SQLite connection wait threshold [sqlite]', () => {
  // The suites start with every signal off (helpers/parley.ts): only how long the first in line
  // waits for the connection counts.
  const t = useParley('sqlite', { env: { OVERLOAD_WARMUP_SECONDS: '0', OVERLOAD_MAX_DB_WAIT_MS: '100' } });

  it('answers 503 with Retry-After while a request has waited too long for the connection, and serves again after', async () => {
    const list = () => t.call('GET', '/apps/spreed/api/v4/room', { as: admin });
    assert.equal((await list()).status, 200);
    // The one connection is held for 400 ms (a long transaction, as a slow statement would);
    // a request arriving meanwhile queues for it, and once it has waited past 100 ms the next
    // request is shed at once, before any database work.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holding = t.services.db.kysely.transaction().execute(() => held);
    await new Promise((r) => setTimeout(r, 20));
    const queued = list();
    await new Promise((r) => setTimeout(r, 150));
    const shed = await list();
    release();
    await holding;
    assert.equal(shed.status, 503, shed.text);
    assert.equal(shed.headers.get('retry-after'), '2');
    assert.equal(shed.data.error, 'overloaded');
    assert.equal((await queued).status, 200, 'the request that was already queued is served');
    for (let i = 0; i < 5; i++) assert.equal((await list()).status, 200);
  });
});

describe('overload settings', () => {
  it('has defaults and refuses bad values naming the variable', () => {
    const s = loadSettings({});
    assert.deepEqual(s.overload, {
      maxEventLoopDelayMs: 200,
      maxHeapPercent: 90,
      maxDbWaiting: 50,
      maxDbWaitMs: 200,
      maxEventLoopUtilization: 0.98,
      sampleMs: 250,
      warmupMs: 10_000,
      minQueuedMs: 100,
      retryAfterSeconds: 2,
    });
    assert.equal(loadSettings({ OVERLOAD_MAX_DB_WAIT_MS: '0' }).overload.maxDbWaitMs, 0);
    assert.equal(loadSettings({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' }).overload.maxEventLoopDelayMs, 0);
    assert.throws(
      () => loadSettings({ OVERLOAD_MAX_HEAP_PERCENT: '101' }),
      (e: unknown) => e instanceof SettingsError && /OVERLOAD_MAX_HEAP_PERCENT/.test(e.message),
    );
    assert.equal(loadSettings({ OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: '90' }).overload.maxEventLoopUtilization, 0.9);
    for (const [name, value] of [
      ['OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT', '101'],
      ['OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT', '0.98'],
      ['OVERLOAD_MAX_DB_WAIT_MS', '-1'],
      ['OVERLOAD_MAX_DB_WAIT_MS', 'soon'],
    ]) {
      assert.throws(
        () => loadSettings({ [name]: value }),
        (e: unknown) => e instanceof SettingsError && e.message.includes(name),
        `${name}=${value}`,
      );
    }
    assert.throws(
      () => loadSettings({ OVERLOAD_SAMPLE_MS: 'soon' }),
      (e: unknown) => e instanceof SettingsError && /OVERLOAD_SAMPLE_MS/.test(e.message),
    );
  });
});

describe('admission rate of a saturated process', () => {
  /** Offers `n` requests spread evenly over [from, from + ms); returns how many were let in. */
  const offer = (rate: AdmissionRate, from: number, ms: number, n: number): number => {
    let admitted = 0;
    for (let i = 0; i < n; i++) if (rate.admit(from + (i * ms) / n)) admitted++;
    return admitted;
  };

  it('lets everything in until a sample is saturated, then 0.8 of what that sample admitted', () => {
    const rate = new AdmissionRate();
    assert.equal(offer(rate, 0, 100, 400), 400);
    rate.sample(100, 100, 0.5, 0.98);
    assert.equal(rate.perSecond, undefined);
    assert.equal(offer(rate, 100, 100, 400), 400);
    rate.sample(200, 100, 0.99, 0.98);
    assert.equal(Math.round(rate.perSecond!), 3200);
    // 400 per 100 ms were admitted: now 320 per 100 ms, whatever is offered.
    const admitted = offer(rate, 200, 100, 800);
    assert.ok(admitted >= 315 && admitted <= 322, String(admitted));
  });

  it('lowers the rate while saturated, raises it by the room left while calm and refusing, lifts it once nothing is refused', () => {
    const rate = new AdmissionRate();
    offer(rate, 0, 100, 1000);
    rate.sample(100, 100, 1, 0.98); // 800 per 100 ms
    const first = offer(rate, 100, 100, 2000);
    rate.sample(200, 100, 1, 0.98); // still saturated: 0.8 of what it admitted
    const second = offer(rate, 200, 100, 2000);
    assert.ok(second < first * 0.82 && second > first * 0.78, `${first} then ${second}`);
    rate.sample(300, 100, 0.49, 0.98); // calm, refusing: doubled (0.98 / 0.49, the most)
    const third = offer(rate, 300, 100, 4000);
    assert.ok(third > second * 1.9 && third < second * 2.1, `${second} then ${third}`);
    rate.sample(400, 100, 0.95, 0.98); // calm, refusing, near the threshold: +5%
    const fourth = offer(rate, 400, 100, 4000);
    assert.ok(fourth > third * 1.03 && fourth < third * 1.08, `${third} then ${fourth}`);
    rate.sample(500, 100, 0.95, 0.98);
    // Offered less than the rate (after the bucket refilled a little): nothing refused, so the
    // next calm sample lifts the limit.
    assert.equal(offer(rate, 501, 99, 100), 100);
    rate.sample(600, 100, 0.5, 0.98);
    assert.equal(rate.perSecond, undefined);
    assert.equal(offer(rate, 600, 100, 5000), 5000);
  });

  it('never falls below one request per sample, and spreads admissions over the sample', () => {
    const rate = new AdmissionRate();
    rate.sample(100, 100, 1, 0.98); // saturated with nothing admitted
    assert.equal(rate.perSecond, 10);
    // One per 100 ms: 2 of 50 requests offered over 250 ms (at 200 and 300 ms).
    assert.equal(offer(rate, 100, 250, 50), 2);
    // A burst at one instant takes what the bucket holds, not the whole sample's allowance.
    const busy = new AdmissionRate();
    offer(busy, 0, 100, 1000);
    busy.sample(100, 100, 1, 0.98); // 8 per ms, 20 ms of burst at most
    assert.equal(offer(busy, 1000, 0, 5000), 160);
  });
});
