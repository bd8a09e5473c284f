/**
 * The page behind notification links (`/index.php/call/{token}` and `/call/{token}`): an HTML page
 * with the Talk apps' deep links (Android `nextcloudtalk://host/call/{token}`, iOS
 * `nextcloudtalk://open-conversation?server=…&withRoomToken=…`), the same for a conversation
 * that exists and one that does not, and a 404 page for a malformed token.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { ParticipantType, useParley } from './helpers/fixtures.js';
import { talkAppLinks } from '../src/domain/talk-app-links.js';

const NOTES = '/ocs/v2.php/apps/notifications/api/v2/notifications';

for (const dialect of dialects()) {
  describe(`conversation link page [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });
    const get = (path: string) => fetch(t.p.url + path, { redirect: 'manual' });

    it("a notification's link opens a page with both apps' links to the conversation", async () => {
      const room = await t.newRoom('alice', { members: { bob: ParticipantType.USER } });
      await t.say(room, 'alice', 'hello @bob');
      const notes = await t.call('GET', NOTES, { as: as('bob') });
      assert.equal(notes.status, 200, notes.text);
      const note = notes.data.find((n: any) => n.object_id?.startsWith(room.token));
      assert.ok(note, 'bob has a notification');
      const link = new URL(note.link);
      assert.equal(link.pathname, `/index.php/call/${room.token}`);
      const view = note.actions.find((a: any) => a.link)?.link ?? note.link;
      for (const path of [link.pathname, new URL(view).pathname, `/call/${room.token}`]) {
        const r = await get(path);
        assert.equal(r.status, 200, path);
        assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
        const html = await r.text();
        const host = new URL(t.p.url).host;
        assert.ok(html.includes(`href="nextcloudtalk://${host}/call/${room.token}"`), html);
        assert.ok(html.includes(`nextcloudtalk://open-conversation?server=${encodeURIComponent(t.p.url)}&amp;withRoomToken=${room.token}`), html);
        assert.ok(!html.includes('<script'), 'no script');
      }
    });

    it('a conversation that does not exist gets the same page (nothing tells them apart); a malformed token a 404 page', async () => {
      const room = await t.newRoom('alice');
      const real = await get(`/index.php/call/${room.token}`);
      const missing = await get('/index.php/call/zzzzzzzz');
      assert.equal(real.status, 200);
      assert.equal(missing.status, 200);
      const a = (await real.text()).replaceAll(room.token, 'TOKEN');
      const b = (await missing.text()).replaceAll('zzzzzzzz', 'TOKEN');
      assert.equal(a, b);
      // A NUL byte is refused before any route, as everywhere outside OCS (web-bad-bytes.test.ts).
      assert.equal((await get('/index.php/call/%00abcd')).status, 400);
      for (const bad of ['AB', 'has-dash1', 'x'.repeat(31), '%3Cscript%3E']) {
        const r = await get(`/index.php/call/${bad}`);
        assert.equal(r.status, 404, bad);
        assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
        const html = await r.text();
        assert.ok(!html.includes('<script'), bad);
        assert.match(html, /not a link to a conversation/);
      }
    });

    it('links carry a base path and a port', () => {
      assert.deepEqual(talkAppLinks('https://cloud.example.com:8443/nextcloud/', 'abc123'), {
        android: 'nextcloudtalk://cloud.example.com:8443/nextcloud/call/abc123',
        ios: 'nextcloudtalk://open-conversation?server=https%3A%2F%2Fcloud.example.com%3A8443%2Fnextcloud&withRoomToken=abc123',
      });
    });
  });
}
