/**
 * GET /cloud/capabilities (docs/reference/capabilities-and-config.md#the-capabilities-document): Nextcloud's shape,
 * features exactly as registered, the config tree fed from app config and the caller's
 * preferences, the guest view, allowed_groups (no spreed key, 403 on Talk routes), the ETag,
 * a constant query count, and a change made by another process seen on the next request.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { activeFeatures } from '../src/domain/features.js';
import { TALK_VERSION } from '../src/domain/version.js';
import { admin, as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { seenAcross } from './helpers/eventually.js';

const API = '/apps/provisioning_api/api/v1/config/apps/spreed';
/** Names a v4 server must never advertise (docs/reference/capabilities-and-config.md#features). */
const HISTORIC = ['chat', 'invite-by-mail', 'conversation-v2', 'conversation-v3', 'new-chat-flow'];

for (const dialect of dialects()) {
  describe(`capabilities [${dialect}]`, () => {
    let p: Parley;
    let other: Parley; // a second server on the same database ("another process")
    before(async () => {
      p = await startParley(dialect);
      other = await startParley(dialect, { env: p.env });
      await createUser(p, 'alice');
      await createUser(p, 'sam', { groups: ['staff'] });
    });
    after(async () => {
      await other.app.close();
      await other.services.db.close();
      await p.close();
    });

    const caps = async (who?: string, server = p) => {
      const r = await call(server, 'GET', '/cloud/capabilities', who ? { as: who === 'admin' ? admin : as(who) } : {});
      assert.equal(r.status, 200, r.text);
      return r;
    };
    const spreed = async (who?: string, server = p) => (await caps(who, server)).data.capabilities.spreed;
    const setConfig = async (key: string, value: unknown, server = p) => {
      const r = await call(server, 'POST', `${API}/${key}`, { as: admin, body: { value } });
      assert.equal(r.status, 200, r.text);
    };
    const unset = async (key: string) => assert.equal((await call(p, 'DELETE', `${API}/${key}`, { as: admin })).status, 200);

    it("has Nextcloud's shape: version, core and spreed with features, config, config-local and version", async () => {
      const data = (await caps('alice')).data;
      assert.deepEqual(Object.keys(data), ['version', 'capabilities']);
      for (const k of ['major', 'minor', 'micro', 'string', 'edition', 'extendedSupport']) assert.ok(k in data.version, k);
      assert.equal(data.capabilities.core.pollinterval, 60);
      assert.equal(data.capabilities.core['webdav-root'], 'remote.php/webdav');
      const s = data.capabilities.spreed;
      assert.deepEqual(Object.keys(s), ['features', 'features-local', 'config', 'config-local', 'version']);
      assert.equal(s.version, TALK_VERSION);
      assert.deepEqual(Object.keys(s.config), [
        'attachments',
        'call',
        'chat',
        'conversations',
        'federation',
        'previews',
        'signaling',
        'experiments',
        'permissions',
      ]);
      assert.equal(s.config.chat['max-length'], 32000);
      assert.equal(s.config.conversations['description-length'], 2000);
      assert.equal(s.config.call['supported-reactions'].length, 12);
      assert.deepEqual(s.config.permissions, { 'max-default': 254, 'max-custom': 255, default: 246 });
      assert.deepEqual(s.config.federation, { enabled: false, 'incoming-enabled': false, 'outgoing-enabled': false, 'only-trusted-servers': true });
      assert.deepEqual(s['config-local'].attachments, ['allowed', 'folder']);
      for (const [section, keys] of Object.entries(s['config-local'] as Record<string, string[]>)) {
        assert.ok(Array.isArray(keys), section);
      }
    });

    it('advertises exactly the registered features (never more), none of the historic names', async () => {
      const s = await spreed('alice');
      const expected = activeFeatures(await p.services.appConfig.snapshot());
      assert.deepEqual(s.features, expected.features);
      assert.deepEqual(s['features-local'], expected.local);
      assert.equal(new Set(s.features).size, s.features.length, 'no duplicates');
      for (const f of s['features-local']) assert.ok(s.features.includes(f), `local feature ${f} is also a feature`);
      for (const h of HISTORIC) assert.ok(!s.features.includes(h), h);
    });

    it('feeds the config tree from app config', async () => {
      await setConfig('max_gif_size', 1234);
      await setConfig('start_calls', 3);
      await setConfig('breakout_rooms', 'no');
      await setConfig('default_permissions', 126);
      await setConfig('retention_event_rooms', 5);
      await setConfig('chat_style', 'unified');
      const s = await spreed('alice');
      assert.equal(s.config.previews['max-gif-size'], 1234);
      assert.equal(s.config.call.enabled, false);
      assert.equal(s.config.call['breakout-rooms'], false);
      assert.equal(s.config.permissions.default, 126);
      assert.equal(s.config.conversations['retention-event'], 5);
      assert.equal(s.config.chat.style, 'unified');
      for (const k of ['max_gif_size', 'start_calls', 'breakout_rooms', 'default_permissions', 'retention_event_rooms', 'chat_style']) await unset(k);
      const back = await spreed('alice');
      assert.equal(back.config.previews['max-gif-size'], 3145728);
      assert.equal(back.config.call.enabled, true);
    });

    it("feeds the caller's preferences: attachment folder and read privacy", async () => {
      const set = (key: string, value: string) => call(p, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('alice'), body: { key, value } });
      assert.equal((await set('attachment_folder', '/Alice Files')).status, 200);
      assert.equal((await set('read_status_privacy', '1')).status, 200);
      const s = await spreed('alice');
      assert.equal(s.config.attachments.folder, '/Alice Files');
      // Users may share files into conversations (docs/reference/files.md#capabilities).
      assert.equal(s.config.attachments.allowed, true);
      assert.equal(s.config.chat['read-privacy'], 1);
      const sam = await spreed('sam');
      assert.equal(sam.config.attachments.folder, '/Talk', 'another user keeps the default');
      assert.equal(sam.config.chat['read-privacy'], 0);
      await setConfig('default_attachment_folder', '/Shared Talk');
      assert.equal((await spreed('sam')).config.attachments.folder, '/Shared Talk');
      assert.equal((await spreed('alice')).config.attachments.folder, '/Alice Files');
      await unset('default_attachment_folder');
    });

    it('start_conversations decides conversations.can-create per user', async () => {
      assert.equal((await spreed('alice')).config.conversations['can-create'], true);
      await setConfig('start_conversations', ['staff']);
      assert.equal((await spreed('alice')).config.conversations['can-create'], false);
      assert.equal((await spreed('sam')).config.conversations['can-create'], true);
      await unset('start_conversations');
    });

    it('gives anonymous callers the guest view', async () => {
      const s = await spreed();
      assert.deepEqual(s.config.attachments, { allowed: false });
      assert.equal(s.config.conversations['can-create'], false);
      assert.equal(s.config.call['can-enable-sip'], false);
      assert.equal(s.config.call['can-upload-background'], false);
      assert.equal(s.config.chat['read-privacy'], 0);
      assert.deepEqual(s.features, (await spreed('alice')).features);
    });

    it('allowed_groups: a user outside gets no spreed key and 403 on Talk routes; members and guests keep it', async () => {
      await setConfig('allowed_groups', ['staff']);
      const outside = await caps('alice');
      assert.ok(!('spreed' in outside.data.capabilities));
      assert.ok('core' in outside.data.capabilities);
      assert.ok('spreed' in (await caps('sam')).data.capabilities);
      assert.ok('spreed' in (await caps()).data.capabilities, 'guests are not restricted by allowed_groups');
      for (const [method, path, body] of [
        ['GET', '/apps/spreed/api/v4/room', undefined],
        ['POST', '/apps/spreed/api/v1/settings/user', { key: 'play_sounds', value: 'no' }],
      ] as const) {
        const r = await call(p, method, path, { as: as('alice'), body });
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.equal(r.data.error, 'allowed_groups');
        const member = await call(p, method, path, { as: as('sam'), body });
        assert.equal(member.status, 200, `${method} ${path} as a member`);
      }
      await unset('allowed_groups');
      assert.ok('spreed' in (await caps('alice')).data.capabilities);
    });

    it('sends the ETag of the data (md5 of its JSON); it changes with the document', async () => {
      const r = await caps('alice');
      const etag = `"${createHash('md5').update(JSON.stringify(r.data)).digest('hex')}"`;
      assert.equal(r.headers.get('etag'), etag);
      assert.equal((await caps('alice')).headers.get('etag'), etag, 'stable');
      const guest = await caps();
      assert.notEqual(guest.headers.get('etag'), etag);
      await setConfig('max_gif_size', 99);
      assert.notEqual((await caps('alice')).headers.get('etag'), etag);
      await unset('max_gif_size');
      assert.equal((await caps('alice')).headers.get('etag'), etag);
    });

    it('renders the same document in XML and in the v1 envelope', async () => {
      const xml = await call(p, 'GET', '/cloud/capabilities', { as: as('alice'), format: 'xml' });
      assert.match(xml.text, /<spreed>\n/);
      assert.match(xml.text, /<max-gif-size>3145728<\/max-gif-size>/);
      const v1 = await call(p, 'GET', '/cloud/capabilities', { as: as('alice'), version: 1 });
      assert.equal(v1.meta.statuscode, 100);
      assert.deepEqual(v1.data, (await caps('alice')).data);
    });

    it('costs a constant number of queries per request (cached document or not)', async () => {
      await caps('alice');
      const count = async () => {
        const before = p.services.db.stats.queries;
        await caps('alice');
        return p.services.db.stats.queries - before;
      };
      const warm = await count();
      // The brute-force cap is checked before a cached credential is honoured (docs/security.md),
      // kept on the change feed on both databases (PostgreSQL: migration 0713); the credential,
      // config generation and preferences come from the read cache. Nothing is read on
      // PostgreSQL but the request's sync (every commit made before it arrived has been heard);
      // SQLite may read the feed once when the change stamp moved.
      if (dialect === 'postgres') assert.equal(warm, 1, `authenticated capabilities took ${warm} queries`);
      else assert.ok(warm <= 1, `authenticated capabilities took ${warm} queries`);
      // A new generation: cached reads are checked again, the config and document reloaded.
      await setConfig('max_gif_size', 42);
      const rebuilt = await count();
      assert.ok(rebuilt <= 8, `rebuilding took ${rebuilt} queries`);
      assert.equal(await count(), warm);
      await unset('max_gif_size');
    });

    // The next request, on both databases (docs/architecture.md "Caches across processes"), and
    // never the old value again after that.
    const shows = async (what: string, probe: () => Promise<boolean>) => {
      await seenAcross(dialect, what, probe, (seen) => seen);
      for (let i = 0; i < 5; i++) assert.ok(await probe(), `${what} (again)`);
    };

    it('a change made through another process shows on the next request (config, preferences)', async () => {
      assert.equal((await spreed('alice')).config.call.enabled, true);
      await setConfig('start_calls', 3, other);
      await shows('start_calls from the other process', async () => (await spreed('alice')).config.call.enabled === false);
      const r = await call(other, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('alice'), body: { key: 'typing_privacy', value: '1' } });
      assert.equal(r.status, 200);
      await shows('typing_privacy from the other process', async () => (await spreed('alice')).config.chat['typing-privacy'] === 1);
      await unset('start_calls');
      await shows('start_calls unset on the first process', async () => (await spreed('alice', other)).config.call.enabled === true);
    });
  });
}
