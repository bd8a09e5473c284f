/**
 * Capabilities say the truth both ways: the feature list is exactly what this branch implements
 * (sip-support as Talk advertises it: always), an endpoint whose contract row names a required
 * capability exists while it is advertised and is Nextcloud's route-not-found 404 while it is
 * not, and the signaling secrets are generated on the first start (a 255-character ticket
 * secret, a key pair of `signaling_token_alg`), kept across restarts and never shown unmasked.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { ocsRoute, type OcsRouteDef } from '../src/http/ocs/route.js';
import { admin, as, call, dialects, startParley, type Parley } from './helpers/parley.js';
import { createRoom, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

/** What this branch implements (chat and calls land with their own areas). */
const IMPLEMENTED = [
  'conversation-v4',
  'empty-group-room',
  'last-room-activity',
  'locked-one-to-one-rooms',
  'start-call-flag',
  'single-conversation-status',
  'conversation-creation-password',
  'conversation-creation-all',
  'breakout-rooms-v1',
  'avatar',
  'favorites',
  'notification-levels',
  'read-only-rooms',
  'listable-rooms',
  'webinary-lobby',
  'room-description',
  'notification-calls',
  'conversation-permissions',
  'message-expiration',
  'archived-conversations-v2',
  'note-to-self',
  'important-conversations',
  'sensitive-conversations',
  'guest-display-names',
  'multi-room-users',
  'invite-groups-and-mails',
  'circles-support',
  'publishing-permissions',
  'session-state',
  'typing-privacy',
  'sip-support',
  'chat-v2',
  'system-messages',
  'mention-flag',
  'chat-read-marker',
  'chat-unread',
  'chat-replies',
  'chat-reference-id',
  'delete-messages',
  'rich-object-delete',
  'silent-send',
  'direct-mention-flag',
  'chat-read-last',
  'clear-history',
  'chat-permission',
  'chat-get-context',
  'chat-keep-notifications',
  'delete-messages-unlimited',
  'edit-messages',
  'edit-messages-note-to-self',
  'silent-send-state',
  'markdown-messages',
  'mention-permissions',
  'chat-read-status',
  'rich-object-sharing',
  'geo-location-sharing',
  'rich-object-list-media',
  'voice-message-sharing',
  'media-caption',
  'remind-me-later',
  'upcoming-reminders',
  'pinned-messages',
  'scheduled-messages',
  'reactions',
  'talk-polls',
  'talk-polls-drafts',
  'edit-draft-poll',
  'audio',
  'video',
  'in-call-flags',
  'conversation-call-flags',
  'silent-call',
  'send-call-notification',
  'recording-consent',
  'signaling-v3',
  'guest-signaling',
];

const ROUTE_NOT_FOUND = /Invalid query/;
/** A route definition to register with a capability of the test's choosing. */
const GATED_PROBE: OcsRouteDef<undefined> = { method: 'GET', path: '/probe', auth: 'public', summary: 'probe', handler: async () => null };

async function features(p: Parley): Promise<string[]> {
  const r = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
  return r.data.capabilities.spreed.features;
}

async function storedConfig(p: Parley): Promise<Map<string, string>> {
  const rows = await p.services.db.kysely.selectFrom('app_config').select(['key', 'value']).where('key', 'like', 'signaling_%').execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}

for (const dialect of dialects()) {
  describe(`capabilities tell the truth [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });

    it('the feature list is exactly what is implemented; sip-support without SIP configured, as Talk', async () => {
      assert.deepEqual([...(await features(t.p))].sort(), [...IMPLEMENTED].sort());
      for (const missing of ['react-permission', 'sip-support-dialout']) {
        assert.ok(!(await features(t.p)).includes(missing), missing);
      }
    });

    it('every route that names a capability answers (not route-not-found) while it is advertised', async () => {
      // federation-v1 is advertised only while federation is enabled (off by default).
      await t.services.appConfig.set('federation_enabled', 'yes');
      try {
        const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Gated' });
        const gated = ((t.p.app as any).ocsRoutes as OcsRouteDef<any>[]).filter((d) => d.capability);
        assert.ok(gated.length >= 15, `capability routes: ${gated.length}`);
        const on = await features(t.p);
        for (const d of gated) {
          assert.ok(on.includes(d.capability!), `${d.path} needs ${d.capability}, advertised here`);
          const path = d.path.replace(':token', room.token).replace(/:[a-zA-Z]+/g, 'x');
          const r = await t.call(d.method, path, { as: as('alice') });
          assert.doesNotMatch(r.meta?.message ?? '', ROUTE_NOT_FOUND, `${d.method} ${d.path}: ${r.status}`);
        }
      } finally {
        await t.services.appConfig.set('federation_enabled', 'no');
      }
    });

    it('a route naming a capability no feature carries is refused at registration (it would never exist)', () => {
      assert.throws(() => ocsRoute(t.p.app, t.p.services, { ...GATED_PROBE, capability: 'no-such-feature' }), /unknown capability feature "no-such-feature"/);
    });

    it('while breakout-rooms-v1 is not advertised, its endpoints do not exist (404 route not found, v1 998)', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'No breakout' });
      const paths: Array<[string, string]> = [
        ['GET', `${V4}/room/${room.token}/breakout-rooms`],
        ['GET', `${V4}/room/${room.token}/breakout-rooms/participants`],
        ['POST', `/apps/spreed/api/v1/breakout-rooms/${room.token}`],
      ];
      for (const [method, path] of paths) assert.notEqual((await t.call(method, path, { as: as('alice') })).status, 404, path);
      await t.p.services.appConfig.set('breakout_rooms', 'no');
      try {
        assert.ok(!(await features(t.p)).includes('breakout-rooms-v1'));
        for (const [method, path] of paths) {
          const r = await t.call(method, path, { as: as('alice'), ...(method === 'GET' ? {} : { body: { mode: 1, amount: 2 } }) });
          assert.equal(r.status, 404, path);
          assert.match(r.meta.message, ROUTE_NOT_FOUND, path);
          const v1 = await t.call(method, path, { as: as('alice'), version: 1 });
          assert.equal(v1.meta.statuscode, 998, path);
        }
      } finally {
        await t.p.services.appConfig.set('breakout_rooms', 'yes');
      }
    });

    it('the signaling ticket secret and the ES256 key pair exist after the first start, and work together', async () => {
      const stored = await storedConfig(t.p);
      const secret = stored.get('signaling_ticket_secret')!;
      assert.equal(secret.length, 255);
      assert.equal(new Set(secret).size > 20, true, 'random, not a repeated character');
      const priv = createPrivateKey(stored.get('signaling_token_privkey_es256')!);
      const pub = createPublicKey(stored.get('signaling_token_pubkey_es256')!);
      assert.equal(priv.asymmetricKeyType, 'ec');
      assert.equal(priv.asymmetricKeyDetails?.namedCurve, 'prime256v1');
      const signature = sign('sha256', Buffer.from('ticket'), priv);
      assert.ok(verify('sha256', Buffer.from('ticket'), pub, signature), 'the stored public key belongs to the private key');
    });

    it('the API shows the secret and the private key only masked; the public key is public', async () => {
      const base = '/apps/provisioning_api/api/v1/config/apps/spreed';
      for (const key of ['signaling_ticket_secret', 'signaling_token_privkey_es256']) {
        const r = await t.call('GET', `${base}/${key}`, { as: admin });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.data, '***REMOVED SENSITIVE VALUE***', key);
      }
      const pub = await t.call('GET', `${base}/signaling_token_pubkey_es256`, { as: admin });
      assert.match(pub.data.data, /^-----BEGIN PUBLIC KEY-----/);
    });

    it('a restart keeps them; another algorithm gets its own key pair at the next start', async () => {
      const first = await storedConfig(t.p);
      await t.p.services.appConfig.set('signaling_token_alg', 'EdDSA');
      const again = await startParley(dialect, { env: t.p.env });
      try {
        const stored = await storedConfig(again);
        assert.equal(stored.get('signaling_ticket_secret'), first.get('signaling_ticket_secret'));
        assert.equal(stored.get('signaling_token_privkey_es256'), first.get('signaling_token_privkey_es256'));
        const secretKey = Buffer.from(stored.get('signaling_token_privkey_eddsa')!, 'base64');
        const publicKey = Buffer.from(stored.get('signaling_token_pubkey_eddsa')!, 'base64');
        assert.equal(secretKey.length, 64, 'libsodium secret key: seed and public key');
        assert.equal(publicKey.length, 32);
        assert.deepEqual(secretKey.subarray(32), publicKey);
      } finally {
        await again.app.close();
        await again.services.db.close();
        await t.p.services.appConfig.set('signaling_token_alg', 'ES256');
      }
    });
  });
}
