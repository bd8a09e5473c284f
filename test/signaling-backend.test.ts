/**
 * The external signaling server's side of Parley (docs/reference/signaling.md#backend-api, docs/reference/signaling.md#notifications-to-the-signaling-server):
 * POST /signaling/backend (`auth`, `room`, `ping`, checksums, throttling) called the way
 * nextcloud-spreed-signaling calls it, and the notifications Parley POSTs to the server when rooms
 * change — captured here by a small HTTP listener standing in for the server's
 * `/api/v1/room/<token>` (the real server is exercised in signaling-hpb.test.ts).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V3 = '/apps/spreed/api/v3';
const SECRET = 'backend-shared-secret';

interface Captured {
  path: string;
  body: any;
  checksumOk: boolean;
  backend: string | undefined;
}

/** Listens like the signaling server's backend API; `status()` decides each answer. */
async function fakeSignalingServer(status: () => number = () => 200, delayMs = 0) {
  const got: Captured[] = [];
  let hits = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      hits++;
      const random = String(req.headers['spreed-signaling-random'] ?? '');
      const checksum = createHmac('sha256', SECRET)
        .update(random + raw)
        .digest('hex');
      setTimeout(() => answer(checksum), delayMs);
    });
    const answer = (checksum: string) => {
      const code = status();
      if (code === 200) {
        got.push({
          path: req.url!,
          body: JSON.parse(raw),
          checksumOk: checksum === req.headers['spreed-signaling-checksum'],
          backend: req.headers['spreed-signaling-backend'] as string,
        });
      }
      res.writeHead(code, { 'Content-Type': 'application/json' }).end('{}');
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, got, hits: () => hits, close: () => new Promise((r) => server.close(r)) };
}

async function until<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const dialect of dialects()) {
  describe(`signaling backend API and notifications [${dialect}]`, () => {
    const fx = useParley(dialect, { env: { ...NO_THROTTLE, BRUTE_FORCE_MAX_ATTEMPTS: '4', BASE_URL: 'http://parley.test' } });
    let token: string;
    let aliceSession: string;

    /** POSTs to the backend API as the signaling server does (checksum over random + raw body). */
    const backend = (body: unknown, secret = SECRET, raw = JSON.stringify(body)) => {
      const random = randomBytes(32).toString('hex');
      return fx.call('POST', `${V3}/signaling/backend`, {
        body: raw,
        headers: {
          'Spreed-Signaling-Random': random,
          'Spreed-Signaling-Checksum': createHmac('sha256', secret)
            .update(random + raw)
            .digest('hex'),
          'User-Agent': 'nextcloud-spreed-signaling/unreleased',
        },
      });
    };

    before(async () => {
      for (const u of ['alice', 'bob', 'carol']) await createUser(fx.p, u, { displayName: u.toUpperCase() });
      token = (await createRoom(fx.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Backend room' })).token;
      await fx.call('POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      aliceSession = (await fx.call('POST', `${V4}/room/${token}/participants/active`, { as: as('alice') })).data.sessionId;
      await fx.p.services.serverLists.addServer('signaling_servers', 'http://127.0.0.1:9', SECRET, true);
    });

    /** Makes `url` the one configured signaling server. */
    const onlyServer = async (url: string) => {
      const list = await fx.p.services.serverLists.servers('signaling_servers');
      for (const s of list.servers) await fx.p.services.serverLists.deleteServer('signaling_servers', s.server);
      await fx.p.services.serverLists.addServer('signaling_servers', url, SECRET, true);
    };

    const settingsTicket = async (user?: string) => {
      const r = await fx.call('GET', `${V3}/signaling/settings`, { as: user ? as(user) : admin, query: { token } });
      return r.data.helloAuthParams['1.0'] as { userid: string | null; ticket: string };
    };

    it('auth: the ticket from the settings logs in its user; wrong tickets and unknown users are refused', async () => {
      const params = await settingsTicket('alice');
      const ok = await backend({ type: 'auth', auth: { version: '1.0', params } });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.data, { type: 'auth', auth: { version: '1.0', userid: 'alice', user: { displayname: 'ALICE' } } });
      const stolen = await backend({ type: 'auth', auth: { version: '1.0', params: { userid: 'bob', ticket: params.ticket } } });
      assert.equal(stolen.data.error.code, 'invalid_ticket');
      const nobody = await backend({ type: 'auth', auth: { version: '1.0', params: { userid: 'nobody', ticket: params.ticket } } });
      assert.equal(nobody.data.error.code, 'no_such_user');
      const junk = await backend({ type: 'auth', auth: { version: '1.0', params: { userid: null, ticket: 'a:b:c:d' } } });
      assert.equal(junk.data.error.code, 'invalid_ticket');
      const unknown = await backend({ type: 'frobnicate' });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.data.error.code, 'unknown_type');
    });

    it('signed but malformed bodies: the error object (200) or the 400 each deserves, never a 500', async () => {
      // [what, raw body, the refusal: an error object's code (200) or `<status> <data.error>`].
      const bodies: [string, string, string][] = [
        ['not json', '{"type":', '400 body'],
        ['null', 'null', 'unknown_type'],
        ['an array', '[]', 'unknown_type'],
        ['a string', '"auth"', 'unknown_type'],
        ['auth without params', JSON.stringify({ type: 'auth' }), 'invalid_ticket'],
        ['auth params of the wrong type', JSON.stringify({ type: 'auth', auth: { version: '1.0', params: { userid: 5, ticket: [] } } }), 'invalid_ticket'],
        ['room not an object', JSON.stringify({ type: 'room', room: 5 }), 'no_such_room'],
        ['room id not a string', JSON.stringify({ type: 'room', room: { version: '1.0', roomid: 7, sessionid: {} } }), 'no_such_room'],
        ['room id with NUL', JSON.stringify({ type: 'room', room: { version: '1.0', roomid: 'a\u0000b', userid: 'alice', sessionid: 's' } }), '400 room'],
      ];
      const got: string[] = [];
      for (const [what, raw] of bodies) {
        const r = await backend(undefined, SECRET, raw);
        got.push(`${what}: ${r.status === 200 && r.data?.type === 'error' ? r.data.error?.code : `${r.status} ${r.data?.error}`}`);
      }
      assert.deepEqual(
        got,
        bodies.map(([what, , want]) => `${what}: ${want}`),
      );
      // Entries that are not a list ping nobody; the answer is the ordinary ping answer.
      const ping = await backend({ type: 'ping', ping: { roomid: token, entries: 'x' } });
      assert.deepEqual([ping.status, ping.data], [200, { type: 'room', room: { version: '1.0', roomid: token } }]);
    });

    it('room join: the Talk session of that user gets properties and media permissions; anything else no_such_room', async () => {
      const r = await backend({ type: 'room', room: { version: '1.0', roomid: token, userid: 'alice', sessionid: aliceSession } });
      assert.equal(r.data.type, 'room', r.text);
      assert.equal(r.data.room.roomid, token);
      assert.equal(r.data.room.properties.name, 'Backend room');
      assert.equal(r.data.room.properties.type, RoomType.GROUP);
      assert.deepEqual(r.data.room.permissions, ['publish-audio', 'publish-video', 'publish-screen', 'control']);
      for (const room of [
        { roomid: token, userid: 'bob', sessionid: aliceSession },
        { roomid: token, userid: 'alice', sessionid: 'nosuchsession' },
        { roomid: 'nosuchroom1', userid: 'alice', sessionid: aliceSession },
        { roomid: token, userid: '', sessionid: aliceSession },
      ]) {
        const bad = await backend({ type: 'room', room: { version: '1.0', ...room } });
        assert.equal(bad.data.error?.code, 'no_such_room', JSON.stringify(room));
      }
    });

    it('ping updates the listed sessions in one statement; leave ends the session', async () => {
      await fx.p.services.db.kysely.updateTable('sessions').set({ last_ping: 1000 }).where('session_id', '=', aliceSession).execute();
      const r = await backend({
        type: 'ping',
        ping: { version: '1.0', roomid: token, entries: [{ userid: 'alice', sessionid: aliceSession }, { sessionid: '0' }] },
      });
      assert.equal(r.data.type, 'room', r.text);
      const row = await fx.p.services.db.kysely.selectFrom('sessions').select('last_ping').where('session_id', '=', aliceSession).executeTakeFirst();
      assert.ok(Number(row!.last_ping) > Date.now() / 1000 - 10);

      const bobSession = (await fx.call('POST', `${V4}/room/${token}/participants/active`, { as: as('bob') })).data.sessionId;
      const leave = await backend({ type: 'room', room: { version: '1.0', roomid: token, userid: 'bob', sessionid: bobSession, action: 'leave' } });
      assert.equal(leave.data.type, 'room');
      const gone = await fx.p.services.db.kysely.selectFrom('sessions').select('id').where('session_id', '=', bobSession).executeTakeFirst();
      assert.equal(gone, undefined);
    });

    it('a wrong checksum is refused as invalid_request, throttled, then 429', async () => {
      const ok = await backend({ type: 'ping', ping: { roomid: token, entries: [] } });
      assert.equal(ok.data.type, 'room');
      const noHeaders = await fx.call('POST', `${V3}/signaling/backend`, { body: { type: 'ping' } });
      assert.equal(noHeaders.status, 200);
      assert.equal(noHeaders.data.error.code, 'invalid_request');
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await backend({ type: 'auth', auth: { params: {} } }, 'wrong-secret');
        codes.push(r.status === 200 ? r.data.error.code : r.status);
      }
      // The request without headers was failure 1; the cap is 4 (BRUTE_FORCE_MAX_ATTEMPTS).
      assert.deepEqual(codes, ['invalid_request', 'invalid_request', 'invalid_request', 429, 429]);
      const meanwhile = await backend({ type: 'ping', ping: { roomid: token, entries: [] } });
      assert.equal(meanwhile.status, 429, 'past the cap even a right checksum waits');
    });

    it('notifications: rename → update, remove → disinvite with session ids, add → invite, delete → delete; signed', async () => {
      const hpb = await fakeSignalingServer();
      await fx.p.services.serverLists.deleteServer('signaling_servers', 'http://127.0.0.1:9');
      await fx.p.services.serverLists.addServer('signaling_servers', hpb.url, SECRET, true);
      try {
        const bobSession = (await fx.call('POST', `${V4}/room/${token}/participants/active`, { as: as('bob') })).data.sessionId;
        assert.equal((await fx.call('PUT', `${V4}/room/${token}`, { as: as('alice'), body: { roomName: 'Renamed' } })).status, 200);
        const update = await until(() => hpb.got.find((g) => g.body.type === 'update'));
        assert.equal(update.path, `/api/v1/room/${token}`);
        assert.ok(update.checksumOk, 'signed with the shared secret');
        assert.equal(update.backend, 'http://parley.test/');
        assert.equal(update.body.update.properties.name, 'Renamed');
        assert.deepEqual(update.body.update.userids.sort(), ['alice', 'bob']);

        const bobAttendee = (await fx.call('GET', `${V4}/room/${token}/participants`, { as: as('alice') })).data.find((x: any) => x.actorId === 'bob');
        assert.equal((await fx.call('DELETE', `${V4}/room/${token}/attendees`, { as: as('alice'), body: { attendeeId: bobAttendee.attendeeId } })).status, 200);
        const dis = await until(() => hpb.got.find((g) => g.body.type === 'disinvite'));
        assert.deepEqual(dis.body.disinvite.userids, ['bob']);
        assert.deepEqual(dis.body.disinvite.sessionids, [bobSession]);
        assert.deepEqual(dis.body.disinvite.alluserids, ['alice']);
        assert.equal(dis.body.disinvite.properties['participant-list'], 'refresh');

        await fx.call('POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'carol', source: 'users' } });
        const inv = await until(() => hpb.got.find((g) => g.body.type === 'invite'));
        assert.deepEqual(inv.body.invite.userids, ['carol']);
        assert.deepEqual(inv.body.invite.alluserids.sort(), ['alice', 'carol']);

        await fx.call('DELETE', `${V4}/room/${token}`, { as: as('alice') });
        const del = await until(() => hpb.got.find((g) => g.body.type === 'delete'));
        assert.equal(del.path, `/api/v1/room/${token}`);
      } finally {
        await fx.p.services.signalingNotifier.idle();
        await hpb.close();
      }
    });

    it('participants: attendees without a session as sessionId "0"; a guest renaming (name API or chat) and guests cleaned up', async () => {
      const hpb = await fakeSignalingServer();
      await onlyServer(hpb.url);
      const participantsBodies = () => hpb.got.filter((g) => g.body.type === 'participants').map((g) => g.body.participants);
      try {
        const room = (await createRoom(fx.p, 'alice', { roomType: 3, roomName: 'Guests welcome' })).token;
        await fx.call('POST', `${V4}/room/${room}/participants`, { as: as('alice'), body: { newParticipant: 'carol', source: 'users' } });
        const aliceSid = (await fx.call('POST', `${V4}/room/${room}/participants/active`, { as: as('alice') })).data.sessionId;
        const guest = await joinGuest(fx.p, room);

        // A permission change: carol has no session and appears with sessionId "0", not in the call.
        const carol = (await fx.call('GET', `${V4}/room/${room}/participants`, { as: as('alice') })).data.find((x: any) => x.actorId === 'carol');
        assert.equal(
          (
            await fx.call('PUT', `${V4}/room/${room}/attendees/permissions`, {
              as: as('alice'),
              body: { attendeeId: carol.attendeeId, method: 'set', permissions: 1 + 128 },
            })
          ).status,
          200,
        );
        await fx.p.services.signalingNotifier.idle();
        const perm = participantsBodies().at(-1);
        assert.deepEqual(perm.changed, [], 'carol has no session to change');
        const carolEntry = perm.users.find((u: any) => u.actorId === 'carol');
        assert.deepEqual(
          {
            sessionId: carolEntry.sessionId,
            inCall: carolEntry.inCall,
            lastPing: carolEntry.lastPing,
            userId: carolEntry.userId,
            participantPermissions: carolEntry.participantPermissions,
          },
          { sessionId: '0', inCall: 0, lastPing: 0, userId: 'carol', participantPermissions: 129 },
        );
        assert.ok(
          perm.users.some((u: any) => u.sessionId === aliceSid),
          'sessions as before',
        );

        // The guest names themself: their session in `changed` with the new name.
        const before = participantsBodies().length;
        assert.equal((await fx.call('POST', `/apps/spreed/api/v1/guest/${room}/name`, { as: guest.caller, body: { displayName: 'Gus' } })).status, 200);
        await fx.p.services.signalingNotifier.idle();
        const renamed = participantsBodies().slice(before);
        assert.equal(renamed.length, 1);
        assert.deepEqual(
          renamed[0].changed.map((c: any) => [c.actorType, c.displayName]),
          [['guests', 'Gus']],
        );
        assert.ok(Array.isArray(renamed[0].changed[0].permissions));
        // ... and through the chat's actorDisplayName.
        const posted = await fx.call('POST', `/apps/spreed/api/v1/chat/${room}`, { as: guest.caller, body: { message: 'hi', actorDisplayName: 'Gustav' } });
        assert.equal(posted.status, 201, posted.text);
        await fx.p.services.signalingNotifier.idle();
        assert.deepEqual(
          participantsBodies()
            .at(-1)
            .changed.map((c: any) => c.displayName),
          ['Gustav'],
        );

        // A nameless guest's session went stale: the next participant list cleans the guest up, and the server hears it.
        const nameless = await joinGuest(fx.p, room);
        await fx.p.services.signalingNotifier.idle();
        await fx.p.services.db.kysely.updateTable('sessions').set({ last_ping: 0 }).where('attendee_id', '=', nameless.attendeeId).execute();
        await fx.p.services.db.kysely.updateTable('sessions').set({ last_ping: 0 }).where('attendee_id', '=', guest.attendeeId).execute();
        const beforeClean = participantsBodies().length;
        const listed = await fx.call('GET', `${V4}/room/${room}/participants`, { as: as('alice') });
        assert.ok(!listed.data.some((x: any) => x.attendeeId === nameless.attendeeId), 'the guest is gone');
        await fx.p.services.signalingNotifier.idle();
        const cleaned = participantsBodies().slice(beforeClean);
        assert.equal(cleaned.length, 1);
        assert.deepEqual(cleaned[0].changed, []);
        // The nameless guest is gone; the named one stays an attendee, without a session a "0" entry.
        assert.deepEqual(
          cleaned[0].users.filter((u: any) => u.actorType === 'guests').map((u: any) => [u.displayName, u.sessionId]),
          [['Gustav', '0']],
        );
      } finally {
        await fx.p.services.signalingNotifier.idle();
        await hpb.close();
      }
    });

    it("switchto: starting breakout rooms moves assigned users' sessions there, stopping moves everyone back", async () => {
      const hpb = await fakeSignalingServer();
      await onlyServer(hpb.url);
      const BR = '/apps/spreed/api/v1/breakout-rooms';
      try {
        const parent = (await createRoom(fx.p, 'alice', { roomType: 2, roomName: 'Workshop' })).token;
        for (const u of ['bob', 'carol'])
          await fx.call('POST', `${V4}/room/${parent}/participants`, { as: as('alice'), body: { newParticipant: u, source: 'users' } });
        const ids = Object.fromEntries(
          (await fx.call('GET', `${V4}/room/${parent}/participants`, { as: as('alice') })).data.map((x: any) => [x.actorId, x.attendeeId]),
        );
        const configured = await fx.call('POST', `${BR}/${parent}`, {
          as: as('alice'),
          body: { mode: 2, amount: 2, attendeeMap: JSON.stringify({ [ids.carol]: 1 }) },
        });
        assert.equal(configured.status, 200, configured.text);
        const sid: Record<string, string> = {};
        for (const u of ['alice', 'bob', 'carol']) sid[u] = (await fx.call('POST', `${V4}/room/${parent}/participants/active`, { as: as(u) })).data.sessionId;
        await fx.p.services.signalingNotifier.idle();
        const before = hpb.got.length;

        assert.equal((await fx.call('POST', `${BR}/${parent}/rooms`, { as: as('alice') })).status, 200);
        await fx.p.services.signalingNotifier.idle();
        const started = hpb.got.slice(before).filter((g) => g.body.type === 'switchto');
        // Only carol is assigned; the moderator and unassigned bob stay.
        assert.equal(started.length, 1, JSON.stringify(started.map((g) => g.body)));
        assert.equal(started[0].path, `/api/v1/room/${parent}`);
        assert.deepEqual(started[0].body.switchto.sessions, [sid.carol]);
        const target = (await fx.p.services.repos.rooms.findByToken(started[0].body.switchto.roomid))!;
        assert.equal(target.object_id, parent);
        assert.ok(await fx.p.services.repos.attendees.find(target.id, 'users', 'carol'), 'carol is in that breakout room');

        const inBreakout = (await fx.call('POST', `${V4}/room/${target.token}/participants/active`, { as: as('carol') })).data.sessionId;
        await fx.p.services.signalingNotifier.idle();
        const beforeStop = hpb.got.length;
        assert.equal((await fx.call('DELETE', `${BR}/${parent}/rooms`, { as: as('alice') })).status, 200);
        await fx.p.services.signalingNotifier.idle();
        const stopped = hpb.got.slice(beforeStop).filter((g) => g.body.type === 'switchto');
        assert.deepEqual(
          stopped.map((g) => [g.path, g.body.switchto]),
          [[`/api/v1/room/${target.token}`, { roomid: parent, sessions: [inBreakout] }]],
        );
      } finally {
        await fx.p.services.signalingNotifier.idle();
        await hpb.close();
      }
    });

    it('a slow signaling server never delays the API; 5xx answers are retried at most 3 times, other refusals never', async () => {
      const room = (await createRoom(fx.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Slow' })).token;
      const slow = await fakeSignalingServer(() => 200, 1500);
      const list = await fx.p.services.serverLists.servers('signaling_servers');
      for (const s of list.servers) await fx.p.services.serverLists.deleteServer('signaling_servers', s.server);
      await fx.p.services.serverLists.addServer('signaling_servers', slow.url, SECRET, true);
      try {
        const t = Date.now();
        assert.equal((await fx.call('PUT', `${V4}/room/${room}`, { as: as('alice'), body: { roomName: 'Quick' } })).status, 200);
        assert.ok(Date.now() - t < 1000, `the rename answered after ${Date.now() - t} ms while the server takes 1.5 s`);
        await until(() => slow.got.find((g) => g.body.type === 'update'));
      } finally {
        await fx.p.services.signalingNotifier.idle();
        await slow.close();
      }

      /** Renames the room with only a server answering `status` configured: the deliveries given up and the server's hits. */
      const renameAgainst = async (status: number, replaces: string, roomName: string) => {
        const server = await fakeSignalingServer(() => status);
        await fx.p.services.serverLists.deleteServer('signaling_servers', replaces);
        await fx.p.services.serverLists.addServer('signaling_servers', server.url, SECRET, true);
        try {
          const failedBefore = fx.p.services.signalingNotifier.failed;
          await fx.call('PUT', `${V4}/room/${room}`, { as: as('alice'), body: { roomName } });
          // Both notifications of one conversation go to the server in order: the second is tried
          // only once the first was given up (the outbox's ordered topic).
          await until(() => (fx.p.services.signalingNotifier.failed >= failedBefore + 2 ? true : undefined), 20_000);
          await fx.p.services.signalingNotifier.idle();
          return { url: server.url, gaveUp: fx.p.services.signalingNotifier.failed - failedBefore, hits: server.hits() };
        } finally {
          await server.close();
        }
      };
      const failing = await renameAgainst(503, slow.url, 'Again');
      // The rename is an `update` and its system message a chat `message`: each tried three times.
      assert.equal(failing.gaveUp, 2);
      assert.equal(failing.hits, 3 * failing.gaveUp, 'three tries each, then given up');
      // A refusal below 500 is final: one try each, no retry.
      const refusing = await renameAgainst(403, failing.url, 'Refused');
      assert.equal(refusing.gaveUp, 2);
      assert.equal(refusing.hits, refusing.gaveUp, 'one try each');
    });
  });
}
