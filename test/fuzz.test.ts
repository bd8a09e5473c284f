/**
 * Bounded fuzzing of the whole API (docs/security.md): every operation of GET /openapi.json, as
 * each kind of caller (anonymous, guest of a public conversation, non-participant user,
 * participant, moderator, owner, admin), gets malformed values in every parameter — NUL bytes,
 * numbers outside the 64-bit range or not whole, deep and huge structures, wrong types, path
 * values of the wrong shape. No answer may be a 5xx, and after every 4xx every table must read
 * exactly as before the request (a refusal changes nothing). About 1,900 requests per database.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { admin, as, dialects, type Caller } from './helpers/parley.js';
import { createRoom, joinGuest, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

/** Requests per operation and caller. */
const VARIANTS = 3;

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Malformed values, sent in JSON bodies as they are and in query strings as text. */
const BAD_VALUES: unknown[] = [
  'a\u0000b',
  1e20,
  -1e308,
  '99999999999999999999',
  '-1e308',
  1.5,
  { nested: { value: 'x\u0000' } },
  [1, ['two', { three: 3 }]],
  nested(200),
  'x'.repeat(70_000),
  '',
  true,
  null,
  '\u0000',
  // Below the signed 64-bit range (written as a float: JSON numbers are doubles anyway).
  -9.3e18,
  '{"a":',
];

/** Path values: mostly well-formed ones that reach the handler, some of the wrong shape. */
const BAD_PATH = ['a%00b', '%00', '99999999999999999999', '-1e308', '1.5', 'x'.repeat(300), '%ff%fe', '..'];

/**
 * Tables whose change after a 4xx is the point of the request, not a side effect of bad input:
 * brute-force attempts record refused guesses (token misses, wrong passwords). SQLite's change
 * feed (migration 0712) logs which topics the other tables' writes changed, so it moves with
 * the attempts too; any other write it logged shows in that other table, which is checked.
 */
const COUNTED_ON_REFUSAL = new Set(['brute_force_attempts', 'change_feed']);

/** Names of the tables whose part of two snapshots differs (SQLite; PostgreSQL compares hashes). */
function changedTables(a: string, b: string): string {
  const parts = (x: string) => new Map(x.split('\n--\n').map((t) => [t.slice(0, t.indexOf(':')), t] as [string, string]));
  const pa = parts(a);
  const pb = parts(b);
  return [...pb.keys()].filter((k) => pa.get(k) !== pb.get(k)).join(', ') || 'a table';
}

/**
 * Columns any authenticated request may move, whatever its answer: a login's time (written at
 * most once a minute) and a session's last ping (requests of its holder count as pings).
 */
const TOUCHED_BY_ANY_REQUEST: Record<string, string> = { users: 'last_login', sessions: 'last_ping' };

/** Deterministic pseudo-random choice (the same requests every run, so a failure repeats). */
function pick<T>(list: readonly T[], seed: number): T {
  const x = Math.sin(seed * 12.9898 + 78.233) * 43758.5453;
  return list[Math.floor((x - Math.floor(x)) * list.length)];
}

for (const dialect of dialects()) {
  describe(`fuzzing every operation as every caller [${dialect}]`, () => {
    const fx = useParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' }, users: ['alice', 'bob', 'carol', 'dave'] });
    let tables: string[];
    const pathValues: Record<string, string> = {};
    const callers: Array<[string, Caller | undefined]> = [];

    /** Every row of every table (TOUCHED_BY_ANY_REQUEST aside). */
    async function snapshot(): Promise<string> {
      const parts: string[] = [];
      for (const t of tables) {
        const rows = (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(t)}`.execute(fx.p.services.db.kysely)).rows;
        const stable = rows.map((r) => JSON.stringify(Object.entries(r).filter(([k]) => k !== TOUCHED_BY_ANY_REQUEST[t]))).sort();
        parts.push(`${t}:${stable.join('\n')}`);
      }
      return parts.join('\n--\n');
    }

    /**
     * Cheap evidence that nothing changed: on SQLite the server's connection (this process) counts
     * every row written (total_changes(); a move leads to a full comparison); on PostgreSQL one
     * query hashes every table's rows.
     */
    async function marker(): Promise<string> {
      const db = fx.p.services.db.kysely;
      if (fx.p.dialect === 'sqlite') return String((await sql<{ n: number }>`SELECT total_changes() AS n`.execute(db)).rows[0].n);
      const hashes = tables.map((t) => {
        const row = t in TOUCHED_BY_ANY_REQUEST ? sql`(to_jsonb(x) - ${TOUCHED_BY_ANY_REQUEST[t]}::text)` : sql`to_jsonb(x)`;
        return sql`(SELECT md5(coalesce(string_agg(${row}::text, '|' ORDER BY ${row}::text), '')) FROM ${sql.table(t)} x)`;
      });
      return (await sql<{ h: string }>`SELECT concat_ws(',', ${sql.join(hashes)}) AS h`.execute(db)).rows[0].h;
    }

    before(async () => {
      const room = await createRoom(fx.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'fuzzed' });
      for (const u of ['bob', 'dave']) {
        assert.equal((await fx.call('POST', `${V4}/room/${room.token}/participants`, { as: as('alice'), body: { newParticipant: u } })).status, 200);
      }
      const people = (await fx.call('GET', `${V4}/room/${room.token}/participants`, { as: as('alice') })).data as Array<{
        actorId: string;
        attendeeId: number;
      }>;
      const dave = people.find((x) => x.actorId === 'dave')!.attendeeId;
      assert.equal((await fx.call('POST', `${V4}/room/${room.token}/moderators`, { as: as('alice'), body: { attendeeId: dave } })).status, 200);
      const guest = await joinGuest(fx.p, room.token);
      Object.assign(pathValues, {
        token: room.token,
        attendeeId: String(people.find((x) => x.actorId === 'bob')!.attendeeId),
        userid: 'bob',
        groupid: 'admin',
        app: 'spreed',
        appId: 'spreed',
        key: 'sip_bridge_dialin_info',
        configKey: 'sip_bridge_dialin_info',
        mode: 'json',
        pin: '123456',
      });
      callers.push(
        ['anonymous', undefined],
        ['guest', guest.caller],
        ['non-participant', as('carol')],
        ['participant', as('bob')],
        ['moderator', as('dave')],
        ['owner', as('alice')],
        ['admin', admin],
      );
      const names =
        fx.p.dialect === 'sqlite'
          ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
          : sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`;
      tables = (await names.execute(fx.p.services.db.kysely)).rows
        .map((t) => t.name)
        .filter((t) => !COUNTED_ON_REFUSAL.has(t))
        .sort();
      // SIP and dial-out on, so their routes get past 501 and see the bad input.
      for (const [key, value] of Object.entries({
        sip_bridge_shared_secret: 'fuzz-secret-'.padEnd(40, 'x'),
        sip_bridge_dialin_info: 'Dial +49 30 1234',
        sip_dialout: 'yes',
      })) {
        const r = await fx.call('POST', `/apps/provisioning_api/api/v1/config/apps/spreed/${key}`, { as: admin, body: { value } });
        assert.equal(r.status, 200, r.text);
      }
    });

    it('answers no 5xx, and a 4xx changes no table', async () => {
      const doc = await (await fetch(`${fx.p.url}/openapi.json`)).json();
      const ops: Array<{ method: string; path: string; op: any }> = [];
      for (const [path, byMethod] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(byMethod)) ops.push({ method: method.toUpperCase(), path, op });
      }
      // Deletions last, so the fixtures they may remove serve every other operation first.
      ops.sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
      const failures: string[] = [];
      let sent = 0;
      let mark = await marker();
      let full = fx.p.dialect === 'sqlite' ? await snapshot() : mark;
      for (const [oi, { method, path, op }] of ops.entries()) {
        const pathParams = (op.parameters as any[]).filter((x) => x.in === 'path').map((x) => x.name as string);
        const otherParams = [
          ...(op.parameters as any[]).filter((x) => x.in === 'query').map((x) => x.name as string),
          ...Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
        ];
        for (const [ci, [who, caller]] of callers.entries()) {
          for (let v = 0; v < VARIANTS; v++) {
            const seed = oi * 1000 + ci * 10 + v;
            // The first variant keeps well-formed path values (bad input reaches the handler).
            let url = path.replace(/^\/ocs\/v2\.php/, '');
            for (const [k, name] of pathParams.entries()) {
              const value = v === 0 ? encodeURIComponent(pathValues[name] ?? 'x') : pick(BAD_PATH, seed + k);
              url = url.replace(`{${name}}`, value);
            }
            const params: Record<string, unknown> = {};
            for (const [k, name] of otherParams.entries()) params[name] = pick(BAD_VALUES, seed * 7 + k);
            const inBody = method === 'POST' || method === 'PUT';
            const query: Record<string, string> = {};
            if (!inBody) for (const [k, val] of Object.entries(params)) query[k] = typeof val === 'string' ? val : JSON.stringify(val);
            const r = await fx.call(method, url, { as: caller, ...(inBody ? { body: params } : { query }) });
            sent++;
            const label = `${method} ${url.slice(0, 120)} as ${who} ${JSON.stringify(params).slice(0, 200)}`;
            // 501 is the contract's answer while SIP or dial-out is not configured (the fuzzed
            // app-config deletions switch them off again).
            if (r.status >= 500 && r.status !== 501) failures.push(`${r.status} ${label}: ${r.text.slice(0, 200)}`);
            const nowMark = await marker();
            if (nowMark === mark) continue;
            mark = nowMark;
            const now = fx.p.dialect === 'sqlite' ? await snapshot() : nowMark;
            if (r.status >= 400 && r.status < 500 && now !== full) failures.push(`${r.status} changed ${changedTables(full, now)}: ${label}`);
            full = now;
          }
        }
      }
      assert.ok(sent >= 1500, `sent ${sent}`);
      assert.deepEqual(failures, [], failures.join('\n'));
    });
  });
}
