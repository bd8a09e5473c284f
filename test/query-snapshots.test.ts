/**
 * The SQL of the hot requests, kept as reviewed snapshots (test/queries/<dialect>/<request>.sql):
 * every statement a request sends, on each database, after a warm-up and right after a write, so
 * that a change in what a hot path asks the database shows in review as a diff of these files.
 * The counts are pinned elsewhere (test/chat-send-cost.test.ts, test/capabilities.test.ts, the
 * `countQueries` budgets); this pins the text. UPDATE_QUERY_SNAPSHOTS=1 rewrites the files
 * instead of comparing (docs/testing.md "Query snapshots").
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { as, basic, dialects, passwordOf, type Caller } from './helpers/parley.js';
import { enterRoom, NO_THROTTLE, V4 } from './helpers/rooms.js';
import { useParley, type RoomFixture } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';
const UPDATE = process.env.UPDATE_QUERY_SNAPSHOTS === '1';

for (const dialect of dialects()) {
  describe(`query snapshots [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    let room: RoomFixture;
    let session: Caller;

    /** The statements `fn` sends, including the background work it queued (the signaling notifier). */
    const statements = async (fn: () => Promise<void>): Promise<string[]> => {
      const { db, conversationList, renderedAnswers, signalingNotifier } = t.services;
      // The checks of reused records and answers (VERIFY_KEPT_RECORDS) read them again: not the request's own.
      const verify = [conversationList.verify, renderedAnswers.verify];
      conversationList.verify = renderedAnswers.verify = false;
      await signalingNotifier.idle();
      const seen: string[] = [];
      db.stats.statements = seen;
      try {
        await fn();
        await signalingNotifier.idle();
      } finally {
        db.stats.statements = undefined;
        [conversationList.verify, renderedAnswers.verify] = verify;
      }
      return seen.map((sql) => normalise(sql, { '<schema>': db.schema, '<token>': room?.token }));
    };

    /** Bob writes in the room: a message (moves the room's last message and activity). */
    const write = async () => {
      const r = await t.call('POST', `${V1}/chat/${room.token}`, { as: as('bob'), body: { message: 'a write' } });
      assert.equal(r.status, 201, r.text);
    };

    /**
     * The request once to warm up (first-use statement compilation, caches filled), then its
     * statements warm and right after a write, compared with (or written to) its snapshot.
     */
    const snapshot = async (name: string, request: () => Promise<{ status: number; text: string }>) => {
      const checked = async () => {
        const r = await request();
        assert.ok(r.status >= 200 && r.status < 300, `${name}: ${r.status} ${r.text}`);
      };
      await checked();
      const warm = await statements(checked);
      await write();
      const written = await statements(checked);
      const text = [`-- ${name} [${dialect}]`, '', '-- warm', ...warm.map((s) => `${s};`), '', '-- after a write', ...written.map((s) => `${s};`), ''].join(
        '\n',
      );
      const file = new URL(`./queries/${dialect}/${name}.sql`, import.meta.url);
      if (UPDATE) {
        fs.mkdirSync(new URL('.', file), { recursive: true });
        fs.writeFileSync(file, text);
        return;
      }
      const kept = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      assert.equal(text, kept, `the SQL of ${name} changed: review it, then run UPDATE_QUERY_SNAPSHOTS=1 npm test -- query-snapshots`);
    };

    it('GET /room', async () => {
      room = await t.newRoom('alice', { members: ['bob'] });
      await snapshot('room-list', () => t.call('GET', `${V4}/room`, { as: as('alice') }));
    });

    it('GET /room/{token}', async () => {
      await snapshot('room-get', () => t.call('GET', `${V4}/room/${room.token}`, { as: as('alice') }));
    });

    it('GET /room/{token} with a session cookie', async () => {
      session = await enterRoom(t.p, 'alice', room.token);
      await snapshot('room-get-session', () => t.call('GET', `${V4}/room/${room.token}`, session));
    });

    it('GET /room/{token}/participants', async () => {
      await snapshot('participants', () => t.call('GET', `${V4}/room/${room.token}/participants`, { as: as('alice') }));
    });

    it('GET /chat/{token} (receive)', async () => {
      await snapshot('chat-receive', () => t.call('GET', `${V1}/chat/${room.token}`, { as: as('alice'), query: { lookIntoFuture: '0', limit: '100' } }));
    });

    it('POST /chat/{token} (send)', async () => {
      await snapshot('chat-send', () => t.call('POST', `${V1}/chat/${room.token}`, { as: as('alice'), body: { message: 'hello' } }));
    });

    it('POST /apps/files_sharing/api/v1/shares (a file shared into the conversation)', async () => {
      const put = await fetch(`${t.p.url}/remote.php/dav/files/alice/shared.txt`, {
        method: 'PUT',
        body: 'shared',
        headers: { Authorization: basic('alice', passwordOf('alice')) },
      });
      assert.equal(put.status, 201);
      await snapshot('file-share', () =>
        t.call('POST', '/apps/files_sharing/api/v1/shares', {
          as: as('alice'),
          body: { shareType: 10, shareWith: room.token, path: '/shared.txt', talkMetaData: JSON.stringify({ caption: 'For @bob' }) },
        }),
      );
    });

    it('GET /cloud/capabilities', async () => {
      await snapshot('capabilities', () => t.call('GET', '/cloud/capabilities', { as: as('alice') }));
    });
  });
}

/**
 * A statement's text with what differs from run to run replaced: the test's schema (it names
 * the wake channel), the room's token, timestamps and long numbers (ids, times in ms) written
 * into the text. The statements are parameterised, so today none but the schema occurs; short
 * numbers stay (`select 1`, `limit 1` are part of the query). Whitespace is collapsed so that a
 * statement is one line. On SQLite a post's room statement names last_activity only when the
 * clock's second moved past the room's (RoomsRepository.pointAtMessage leaves the column, and its
 * index, alone otherwise): that clause is dropped, or the snapshot would depend on the clock.
 */
function normalise(sql: string, known: Record<string, string | undefined>): string {
  let s = sql.replace(/\s+/g, ' ').trim().replace('"last_activity" = case when last_activity < ? then ? else last_activity end, ', '');
  for (const [placeholder, value] of Object.entries(known)) if (value) s = s.split(value).join(placeholder);
  return s.replace(/\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?/g, '<time>').replace(/(?<![\w$.])\d{5,}(?![\w.])/g, '<n>');
}
