/**
 * Graceful overload (http/load-shedding.ts): while the event loop is late past the threshold,
 * requests are answered 503 with Retry-After before any work (OCS routes in the OCS envelope),
 * except health and monitoring; once the pressure is gone, requests are served again; and normal
 * load under the default thresholds is never shed. The pressure here is real: the server runs in
 * this process, so busy-waiting blocks its event loop exactly as CPU-bound request work would.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadSettings, SettingsError } from '../src/settings.js';
import { useParley } from './helpers/fixtures.js';
import { admin, dialects } from './helpers/parley.js';

/** Keeps the event loop busy for `ms` (what an overloaded process does to its timers). */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: no timer, no I/O callback can run
  }
}

const CAPABILITIES = '/cloud/capabilities';

for (const dialect of dialects()) {
  describe(`load shedding past the event-loop delay threshold [${dialect}]`, () => {
    // A tiny threshold sampled every 50 ms: one 200 ms stall is far past it.
    const t = useParley(dialect, { env: { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '5', OVERLOAD_SAMPLE_MS: '50', OVERLOAD_RETRY_AFTER_SECONDS: '7' } });

    /** Blocks the loop, then sends `requests` together; retried until the stall was sampled. */
    async function underPressure<T>(requests: () => Promise<T>, shed: (r: T) => boolean): Promise<T> {
      for (let attempt = 0; attempt < 20; attempt++) {
        blockEventLoop(200);
        const r = await requests();
        if (shed(r)) return r;
      }
      assert.fail('20 stalls of 200 ms never made the server shed a request');
    }

    it('answers 503 with Retry-After in the OCS envelope while the event loop is late', async () => {
      const r = await underPressure(
        () => t.call('GET', CAPABILITIES, { as: admin }),
        (res) => res.status !== 200,
      );
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '7');
      assert.equal(r.meta.status, 'failure');
      assert.equal(r.meta.statuscode, 503);
      assert.equal(r.data.error, 'overloaded');
    });

    it('sheds non-OCS routes with the same data, and never /status.php or /metrics', async () => {
      const [hello, status, metrics] = await underPressure(
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

    it('serves again once the pressure is gone', async () => {
      await underPressure(
        () => t.call('GET', CAPABILITIES, { as: admin }),
        (res) => res.status === 503,
      );
      // No stall any more: within a few samples the loop is on time and requests pass.
      let r = await t.call('GET', CAPABILITIES, { as: admin });
      for (let i = 0; i < 40 && r.status === 503; i++) {
        await new Promise((done) => setTimeout(done, 50));
        r = await t.call('GET', CAPABILITIES, { as: admin });
      }
      assert.equal(r.status, 200);
    });
  });

  describe(`no shedding under normal load with the default thresholds [${dialect}]`, () => {
    const t = useParley(dialect);

    it('answers 300 requests, 10 at a time, without a 503', async () => {
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
  });
}

describe('overload settings', () => {
  it('has defaults and refuses bad values naming the variable', () => {
    const s = loadSettings({});
    assert.deepEqual(s.overload, { maxEventLoopDelayMs: 200, maxHeapPercent: 90, sampleMs: 250, retryAfterSeconds: 2 });
    assert.equal(loadSettings({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' }).overload.maxEventLoopDelayMs, 0);
    assert.throws(
      () => loadSettings({ OVERLOAD_MAX_HEAP_PERCENT: '101' }),
      (e: unknown) => e instanceof SettingsError && /OVERLOAD_MAX_HEAP_PERCENT/.test(e.message),
    );
    assert.throws(
      () => loadSettings({ OVERLOAD_SAMPLE_MS: 'soon' }),
      (e: unknown) => e instanceof SettingsError && /OVERLOAD_SAMPLE_MS/.test(e.message),
    );
  });
});
