/**
 * GET /metrics in OpenMetrics (docs/operators.md "Metrics"): request counts and latency by route
 * and status, query count and timings, pool gauges on PostgreSQL, job runs, conversation /
 * participant / session gauges; loopback only unless METRICS_ALLOW widens it. GET /status.php
 * stays free of database work.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runJobIfDue } from '../src/jobs/runner.js';
import { loadSettings, SettingsError } from '../src/settings.js';
import { RoomType, useParley } from './helpers/fixtures.js';
import { admin, dialects } from './helpers/parley.js';
import { eventually } from './helpers/eventually.js';

/** The value of one sample line, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const dialect of dialects()) {
  describe(`GET /metrics [${dialect}]`, () => {
    const t = useParley(dialect, { env: { METRICS_ALLOW: '192.0.2.0/24, 2001:db8::/32' } });

    const scrape = async () => {
      const res = await fetch(`${t.p.url}/metrics`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/openmetrics-text; version=1.0.0; charset=utf-8');
      return res.text();
    };

    it('counts requests and their latency by route and status', async () => {
      await t.call('GET', '/cloud/capabilities', { as: admin });
      await t.call('GET', '/cloud/capabilities', { as: admin });
      await t.call('GET', '/cloud/capabilities', { as: { user: 'admin', password: 'wrong' } });
      const text = await scrape();
      assert.ok(text.endsWith('\n# EOF\n'));
      assert.match(text, /^# TYPE parley_http_requests counter$/m);
      const route = 'method="GET",route="/ocs/v2.php/cloud/capabilities"';
      assert.equal(sample(text, `parley_http_requests_total{${route},status="200"}`), 2);
      assert.equal(sample(text, `parley_http_requests_total{${route},status="401"}`), 1);
      assert.equal(sample(text, `parley_http_request_duration_seconds_count{${route},status="200"}`), 2);
      assert.equal(sample(text, `parley_http_request_duration_seconds_bucket{${route},status="200",le="+Inf"}`), 2);
      assert.ok(sample(text, `parley_http_request_duration_seconds_sum{${route},status="200"}`)! > 0);
    });

    it('labels unknown URLs as one unmatched route (no secret-bearing URL becomes a label)', async () => {
      await fetch(`${t.p.url}/no/such/path?password=hunter2`);
      const text = await scrape();
      assert.equal(sample(text, 'parley_http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
      assert.ok(!text.includes('hunter2'));
    });

    it('reports query counts and timings, and the pool and read cache on PostgreSQL', async () => {
      // The LISTEN connection of the read cache is opened as the server starts.
      if (dialect === 'postgres') await eventually('read cache active', async () => t.services.db.readCache!.active);
      const text = await scrape();
      assert.ok(sample(text, 'parley_db_queries_total')! > 0);
      assert.match(text, /^# TYPE parley_db_query_duration_seconds histogram$/m);
      assert.ok(sample(text, 'parley_db_query_duration_seconds_count')! > 0);
      if (dialect === 'postgres') assert.ok(sample(text, 'parley_db_pool_connections{state="total"}')! >= 1);
      else assert.ok(!text.includes('parley_db_pool_connections'));
      if (dialect === 'postgres') assert.equal(sample(text, 'parley_db_read_cache_active'), 1);
      else assert.ok(!text.includes('parley_db_read_cache_active'));
    });

    it('counts job runs by job and result', async () => {
      await runJobIfDue(t.services, { name: 'metrics-probe', intervalSeconds: 3600, description: 'test', run: async () => 'ok' }, true);
      await runJobIfDue(
        t.services,
        {
          name: 'metrics-probe',
          intervalSeconds: 3600,
          description: 'test',
          run: async () => {
            throw new Error('boom');
          },
        },
        true,
      );
      const text = await scrape();
      assert.equal(sample(text, 'parley_job_runs_total{job="metrics-probe",result="ok"}'), 1);
      assert.equal(sample(text, 'parley_job_runs_total{job="metrics-probe",result="failed"}'), 1);
      assert.equal(sample(text, 'parley_job_duration_seconds_count{job="metrics-probe"}'), 2);
    });

    it('has conversation, participant and session gauges', async () => {
      const before = await scrape();
      assert.equal(sample(before, 'parley_sessions{in_call="true"}'), 0);
      const created = await t.call('POST', '/apps/spreed/api/v4/room', { as: admin, body: { roomType: RoomType.GROUP, roomName: 'Metrics' } });
      assert.equal(created.status, 201, created.text);
      const text = await scrape();
      assert.equal(sample(text, 'parley_conversations{type="group"}'), 1);
      assert.equal(sample(text, 'parley_participants{actor_type="users"}'), 1);
      assert.match(text, /^parley_sessions\{in_call="false"\} \d+$/m);
    });

    it('refuses addresses outside loopback and METRICS_ALLOW', async () => {
      const outside = await t.p.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '198.51.100.7' });
      assert.equal(outside.statusCode, 403);
      assert.ok(!outside.body.includes('parley_'));
      for (const remoteAddress of ['192.0.2.44', '::ffff:192.0.2.45', '2001:db8::5', '::1']) {
        const inside = await t.p.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
        assert.equal(inside.statusCode, 200, remoteAddress);
      }
      const mapped = await t.p.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::ffff:198.51.100.7' });
      assert.equal(mapped.statusCode, 403);
    });

    it('a bad METRICS_ALLOW stops start-up with a message naming it', () => {
      for (const bad of ['10.0.0.0/33', 'example.org', '10.0.0.0/8/1']) {
        assert.throws(
          () => loadSettings({ METRICS_ALLOW: bad }),
          (e: Error) => e instanceof SettingsError && /METRICS_ALLOW/.test(e.message),
        );
      }
      assert.deepEqual(loadSettings({ METRICS_ALLOW: '10.1.2.3' }).metricsAllow, ['10.1.2.3/32']);
    });

    it('GET /status.php sends no query', async () => {
      const before = t.services.db.stats.queries;
      const res = await fetch(`${t.p.url}/status.php`);
      assert.equal(res.status, 200);
      assert.equal((await res.json()).installed, true);
      assert.equal(t.services.db.stats.queries, before);
    });
  });
}
