/**
 * GET /signaling/settings (docs/reference/signaling.md#settings): STUN/TURN servers with time-limited
 * TURN credentials, mode and server, the v1 ticket and the hello v2 JWT (verified with the public
 * key the capabilities publish), the secrets generated at first start, and who may ask.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createPublicKey, verify } from 'node:crypto';
import { admin, as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE } from './helpers/rooms.js';
import { SENSITIVE_MASK } from '../src/app-config/registry.js';
import { RoomType } from './helpers/fixtures.js';

const V3 = '/apps/spreed/api/v3';

/** Verifies a compact JWS with the published public key (PEM, or base64 raw Ed25519). */
function verifyJwt(token: string, alg: string, pub: string): Record<string, any> {
  const [h, p, s] = token.split('.');
  const header = JSON.parse(Buffer.from(h!, 'base64url').toString());
  assert.deepEqual(header, { typ: 'JWT', alg });
  const key =
    alg === 'EdDSA'
      ? createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(pub, 'base64').toString('base64url') }, format: 'jwk' })
      : createPublicKey(pub);
  const data = Buffer.from(`${h}.${p}`);
  const sig = Buffer.from(s!, 'base64url');
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  const ok = verify(hash, data, alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : key, sig);
  assert.ok(ok, `the ${alg} signature verifies with the published key`);
  return JSON.parse(Buffer.from(p!, 'base64url').toString());
}

for (const dialect of dialects()) {
  describe(`signaling settings [${dialect}]`, () => {
    let p: Parley;
    let token: string;
    before(async () => {
      p = await startParley(dialect, { env: { ...NO_THROTTLE, BASE_URL: 'https://parley.example.org' } });
      for (const u of ['alice', 'bob']) await createUser(p, u, { displayName: u === 'alice' ? 'Alice A.' : 'Bob' });
      token = (await createRoom(p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Call room' })).token;
    });
    after(async () => p.close());

    it('first start generated a 255-character ticket secret and an ES256 key pair; reads mask the secrets', async () => {
      const cfg = await p.services.appConfig.snapshot();
      assert.equal(cfg.get('signaling_ticket_secret').length, 255);
      assert.match(cfg.raw('signaling_token_privkey_es256') ?? '', /BEGIN PRIVATE KEY/);
      assert.match(cfg.raw('signaling_token_pubkey_es256') ?? '', /BEGIN PUBLIC KEY/);
      const r = await call(p, 'GET', '/apps/provisioning_api/api/v1/config/apps/spreed/signaling_ticket_secret', { as: admin });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.data, SENSITIVE_MASK);
    });

    it('internal mode: tickets as in external mode, STUN and TURN servers with HMAC-SHA1 credentials valid for 24 h', async () => {
      await p.services.appConfig.set('stun_servers', ['stun.example.org:443', 'stun2.example.org:3478']);
      await p.services.appConfig.set('turn_servers', [{ schemes: 'turn,turns', server: 'turn.example.org:3478', secret: 'turn-secret', protocols: 'udp,tcp' }]);
      const r = await call(p, 'GET', `${V3}/signaling/settings`, { as: as('alice'), query: { token } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.signalingMode, 'internal');
      assert.equal(r.data.userId, 'alice');
      assert.equal(r.data.server, '');
      assert.equal(r.data.hideWarning, false);
      // Talk's getSettings hands out the ticket and hello parameters in both modes.
      assert.deepEqual(Object.keys(r.data).slice(0, 7), ['signalingMode', 'userId', 'hideWarning', 'server', 'ticket', 'helloAuthParams', 'federation']);
      assert.match(r.data.ticket, /^[^:]+:\d+:alice:[0-9a-f]{64}$/);
      assert.deepEqual(r.data.helloAuthParams['1.0'], { userid: 'alice', ticket: r.data.ticket });
      const sig = (await call(p, 'GET', '/cloud/capabilities', { as: as('alice') })).data.capabilities.spreed.config.signaling;
      assert.equal(verifyJwt(r.data.helloAuthParams['2.0'].token, 'ES256', sig['hello-v2-token-key']).sub, 'alice');
      assert.deepEqual(r.data.stunservers, [{ urls: ['stun:stun.example.org:443', 'stun:stun2.example.org:3478'] }]);
      assert.equal(r.data.turnservers.length, 1);
      const turn = r.data.turnservers[0];
      assert.deepEqual(turn.urls, [
        'turn:turn.example.org:3478?transport=udp',
        'turn:turn.example.org:3478?transport=tcp',
        'turns:turn.example.org:3478?transport=udp',
        'turns:turn.example.org:3478?transport=tcp',
      ]);
      const [expiry, rand] = turn.username.split(':');
      const now = Math.floor(Date.now() / 1000);
      assert.ok(Math.abs(Number(expiry) - (now + 86400)) <= 5, 'expires in 24 h');
      assert.equal(rand.length, 16);
      assert.equal(turn.credential, createHmac('sha1', 'turn-secret').update(turn.username).digest('base64'));
      assert.ok(!r.text.includes('turn-secret'), 'the TURN secret itself is never handed out');
    });

    it('who may ask: users without a token; guests only in a conversation they joined; 404 otherwise', async () => {
      assert.equal((await call(p, 'GET', `${V3}/signaling/settings`, { as: as('bob') })).status, 200);
      const anon = await call(p, 'GET', `${V3}/signaling/settings`, {});
      assert.equal(anon.status, 404);
      assert.equal(anon.data.error, 'room');
      assert.equal((await call(p, 'GET', `${V3}/signaling/settings`, { query: { token } })).status, 404, 'a guest who has not joined');
      assert.equal((await call(p, 'GET', `${V3}/signaling/settings`, { as: as('bob'), query: { token: 'nosuchroom1' } })).status, 404);
      assert.equal(
        (await call(p, 'GET', `${V3}/signaling/settings`, { as: as('bob'), query: { token: 'bad token\u0000' } })).status,
        400,
        "a NUL byte is the parameter layer's 400",
      );
      assert.equal((await call(p, 'GET', `${V3}/signaling/settings`, { as: as('bob'), query: { token: 'x'.repeat(65) } })).status, 400);
      const { caller } = await joinGuest(p, token);
      const g = await call(p, 'GET', `${V3}/signaling/settings`, { as: caller, query: { token } });
      assert.equal(g.status, 200, g.text);
      assert.equal(g.data.userId, null);
    });

    it("signaling servers may be ws:// and wss:// URLs (as Talk's talk:signaling:add example); other schemes are refused", async () => {
      const path = '/apps/provisioning_api/api/v1/config/apps/spreed/signaling_servers';
      const list = (server: string) => JSON.stringify({ servers: [{ server, verify: true }], secret: 'x' });
      for (const server of ['wss://signaling.example.org', 'ws://127.0.0.1:8081', 'https://signaling.example.org']) {
        const r = await call(p, 'POST', path, { as: admin, body: { value: list(server) } });
        assert.equal(r.status, 200, `${server}: ${r.text}`);
      }
      const bad = await call(p, 'POST', path, { as: admin, body: { value: list('ftp://signaling.example.org') } });
      assert.equal(bad.status, 400);
      assert.match(bad.data.message, /http\(s\) or ws\(s\)/);
      assert.equal((await call(p, 'POST', path, { as: admin, body: { value: '[]' } })).status, 200);
    });

    it('external mode: server, v1 ticket and a hello v2 JWT signed with the key capabilities publish', async () => {
      await p.services.serverLists.addServer('signaling_servers', 'https://signaling.example.org', 'hpb-secret', true);
      const r = await call(p, 'GET', `${V3}/signaling/settings`, { as: as('alice'), query: { token } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.signalingMode, 'external');
      assert.equal(r.data.server, 'https://signaling.example.org');
      assert.equal(r.data.hideWarning, true);
      const ticket: string = r.data.ticket;
      assert.deepEqual(r.data.helloAuthParams['1.0'], { userid: 'alice', ticket });
      const parts = ticket.split(':');
      assert.equal(parts.length, 4);
      assert.equal(parts[2], 'alice');
      const secret = (await p.services.appConfig.snapshot()).get('signaling_ticket_secret');
      assert.equal(parts[3], createHmac('sha256', secret).update(parts.slice(0, 3).join(':')).digest('hex'));

      const caps = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
      const sig = caps.data.capabilities.spreed.config.signaling;
      assert.equal(sig.mode, 'external');
      assert.ok(caps.data.capabilities.spreed.features.includes('signaling-v3'));
      const claims = verifyJwt(r.data.helloAuthParams['2.0'].token, 'ES256', sig['hello-v2-token-key']);
      assert.equal(claims.iss, 'https://parley.example.org/');
      assert.equal(claims.sub, 'alice');
      assert.deepEqual(claims.userdata, { displayname: 'Alice A.' });
      assert.equal(claims.exp - claims.iat, 60);

      const { caller } = await joinGuest(p, token);
      const g = await call(p, 'GET', `${V3}/signaling/settings`, { as: caller, query: { token } });
      assert.deepEqual(g.data.helloAuthParams['1.0'].userid, null);
      assert.equal(g.data.ticket.split(':')[2], '', 'a guest ticket names no user');
      const gClaims = verifyJwt(g.data.helloAuthParams['2.0'].token, 'ES256', sig['hello-v2-token-key']);
      assert.equal(gClaims.sub, undefined);
    });

    for (const alg of ['ES384', 'RS256', 'EdDSA']) {
      it(`signaling_token_alg ${alg}: a key pair is made on demand and the JWT verifies`, async () => {
        await p.services.appConfig.set('signaling_token_alg', alg);
        const r = await call(p, 'GET', `${V3}/signaling/settings`, { as: as('bob') });
        assert.equal(r.status, 200, r.text);
        const caps = await call(p, 'GET', '/cloud/capabilities', { as: as('bob') });
        const pub = caps.data.capabilities.spreed.config.signaling['hello-v2-token-key'];
        assert.equal(pub, (await p.services.appConfig.snapshot()).raw(`signaling_token_pubkey_${alg.toLowerCase()}`));
        const claims = verifyJwt(r.data.helloAuthParams['2.0'].token, alg, pub as string);
        assert.equal(claims.sub, 'bob');
      });
    }
  });
}
