/**
 * Real parts (docs/reference/signaling.md#the-debian-server-in-tests): Debian's nextcloud-spreed-signaling server on loopback (no NATS
 * server, no Janus) with Parley as its backend. WebSocket clients log in with the tickets
 * Parley's signaling settings hand out, join a conversation (the server asks Parley's backend
 * API), and receive what Parley notifies: a rename arrives as an update, a removed participant is
 * disinvited and its connection closed; joining, leaving and ending a call arrive as participant
 * updates (`incall`), a permission change as a participant update (`participants`), chat
 * messages, reactions and system messages as room messages (`message`, with Talk's chat relay). Also the admin's welcome check against the real server.
 *
 * `.ci/run` installs the package; without the binary the suite is skipped with the reason.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { admin, as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { cookieOf, createRoom, NO_THROTTLE, V4 } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';
import { missingHpb as missing, startHpb, type Hpb } from './helpers/hpb.js';

const V3 = '/apps/spreed/api/v3';
const SECRET = 'hpb-shared-secret-for-tests';
if (missing) console.log(`# signaling-hpb skipped: ${missing}`);

/** One WebSocket client of the signaling server, with a queue of what it received. */
class Client {
  readonly received: any[] = [];
  closed = false;
  private waiters: Array<() => void> = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.received.push(JSON.parse(String(data)));
      this.waiters.splice(0).forEach((w) => w());
    });
    ws.on('close', () => {
      this.closed = true;
      this.waiters.splice(0).forEach((w) => w());
    });
  }

  static async connect(url: string): Promise<Client> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Client(ws);
  }

  send(msg: unknown): void {
    this.ws.send(JSON.stringify(msg));
  }

  /** The first received message matching `pred` (waits up to `ms`). */
  async next(pred: (m: any) => boolean, ms = 5000): Promise<any> {
    const end = Date.now() + ms;
    for (;;) {
      const hit = this.received.find(pred);
      if (hit) return hit;
      if (Date.now() > end) throw new Error(`no matching message for ${pred.toString().slice(0, 200)}; got ${JSON.stringify(this.received)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, end - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  async waitClosed(ms = 5000): Promise<boolean> {
    const end = Date.now() + ms;
    while (!this.closed && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    return this.closed;
  }

  close(): void {
    if (!this.closed) this.ws.close();
  }
}

for (const dialect of dialects()) {
  describe(`nextcloud-spreed-signaling with Parley as backend [${dialect}]`, { skip: missing }, () => {
    let p: Parley;
    let hpb: Hpb | undefined;
    const clients: Client[] = [];

    before(async () => {
      // As docs/signaling.md: HOST=127.0.0.1 and no BASE_URL; the signaling server's backend
      // is the address HOST and PORT name, and Parley announces that one.
      p = await startParley(dialect, { env: { ...NO_THROTTLE } });
      hpb = await startHpb(p.url, SECRET);
      await p.services.serverLists.addServer('signaling_servers', hpb.url.replace(/^http/, 'ws'), SECRET, true);
      for (const u of ['alice', 'bob']) await createUser(p, u, { displayName: u === 'alice' ? 'Alice' : 'Bob' });
    });

    after(async () => {
      clients.forEach((c) => c.close());
      await p?.services.signalingNotifier.idle();
      await hpb?.stop();
      await p?.close();
    });

    /** A user's browser: Talk session, signaling settings, WebSocket hello v1 and room join. */
    async function enter(user: string, token: string): Promise<{ client: Client; sessionId: string; signalingId: string; caller: Caller }> {
      const j = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: as(user) });
      assert.equal(j.status, 200, j.text);
      const caller = { ...as(user), headers: { Cookie: cookieOf(j) } };
      const settings = await call(p, 'GET', `${V3}/signaling/settings`, { as: caller, query: { token } });
      assert.equal(settings.data.signalingMode, 'external');
      const wsUrl = settings.data.server.replace(/^http/, 'ws') + '/spreed';
      const client = await Client.connect(wsUrl);
      clients.push(client);
      client.send({
        id: 'hello',
        type: 'hello',
        hello: { version: '1.0', auth: { url: `${p.url}/ocs/v2.php/apps/spreed/api/v3/signaling/backend`, params: settings.data.helloAuthParams['1.0'] } },
      });
      const hello = await client.next((m) => m.id === 'hello');
      assert.equal(hello.type, 'hello', `hello refused: ${JSON.stringify(hello)} ${hpb!.log()}`);
      assert.equal(hello.hello.userid, user);
      client.send({ id: 'join', type: 'room', room: { roomid: token, sessionid: j.data.sessionId } });
      const joined = await client.next((m) => m.id === 'join');
      assert.equal(joined.type, 'room', `join refused: ${JSON.stringify(joined)}`);
      assert.equal(joined.room.roomid, token);
      return { client, sessionId: j.data.sessionId, signalingId: hello.hello.sessionid, caller };
    }

    it('the admin check sees the real server answer its welcome endpoint', async () => {
      const r = await call(p, 'GET', `${V3}/signaling/welcome/0`, { as: admin });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.version, 'unreleased');
      assert.equal(r.data['nextcloud-spreed-signaling'], 'Welcome');
      assert.equal((await call(p, 'GET', `${V3}/signaling/welcome/1`, { as: admin })).status, 404);
      assert.equal((await call(p, 'GET', `${V3}/signaling/welcome/0`, { as: as('alice') })).status, 403);
    });

    it('clients log in with Parley tickets, join, relay a message; a rename reaches them as update events', async () => {
      const token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'HPB room' })).token;
      await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      const joinEvent = await alice.client.next((m) => m.type === 'event' && m.event.type === 'join' && m.event.join.some((j: any) => j.userid === 'bob'));
      assert.equal(joinEvent.event.join.find((j: any) => j.userid === 'bob').roomsessionid, bob.sessionId);

      alice.client.send({
        id: 'msg',
        type: 'message',
        message: { recipient: { type: 'session', sessionid: bob.signalingId }, data: { type: 'offer', payload: 'x' } },
      });
      const relayed = await bob.client.next((m) => m.type === 'message');
      assert.equal(relayed.message.sender.userid, 'alice');

      assert.equal((await call(p, 'PUT', `${V4}/room/${token}`, { as: as('alice'), body: { roomName: 'Renamed by Parley' } })).status, 200);
      for (const c of [alice.client, bob.client]) {
        const upd = await c.next((m) => m.type === 'event' && m.event.target === 'roomlist' && m.event.type === 'update');
        assert.equal(upd.event.update.roomid, token);
        assert.equal(upd.event.update.properties.name, 'Renamed by Parley');
        const room = await c.next((m) => m.type === 'room' && m.room.properties?.name === 'Renamed by Parley');
        assert.equal(room.room.roomid, token);
      }
    });

    it('a removed participant is disinvited and the server closes its connection; the others stay', async () => {
      const token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Removal' })).token;
      await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      const list = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: as('alice') });
      const bobAttendee = list.data.find((x: any) => x.actorId === 'bob');
      assert.equal((await call(p, 'DELETE', `${V4}/room/${token}/attendees`, { as: as('alice'), body: { attendeeId: bobAttendee.attendeeId } })).status, 200);
      const dis = await bob.client.next((m) => m.type === 'event' && m.event.type === 'disinvite');
      assert.equal(dis.event.disinvite.roomid, token);
      assert.equal(dis.event.disinvite.reason, 'disinvited');
      assert.ok(await bob.client.waitClosed(), 'the signaling server closed the removed client’s connection');
      assert.equal(alice.client.closed, false);
      // Alice is told the participant list changed (roomlist update for the remaining users).
      const upd = await alice.client.next((m) => m.type === 'event' && m.event.target === 'roomlist' && m.event.type === 'update');
      assert.equal(upd.event.update.roomid, token);
    });
    /** Participant updates (from `incall` / `participants`) a client received so far. */
    const isUpdate = (m: any) => m.type === 'event' && m.event.target === 'participants' && m.event.type === 'update';

    it('incall: joining, leaving and ending the call reach the others as participant updates with signaling session ids', async () => {
      const token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'HPB call' })).token;
      await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: bob.caller, body: { flags: 3 } })).status, 200);
      const bobIn = (m: any) => isUpdate(m) && m.event.update.users?.some((u: any) => u.sessionId === bob.signalingId && u.inCall === 3);
      const joined = await alice.client.next(bobIn);
      const entry = joined.event.update.users.find((u: any) => u.sessionId === bob.signalingId);
      assert.equal(entry.userId, 'bob');
      assert.equal(entry.actorType, 'users');
      assert.ok(!('changed' in joined.event.update), 'the server merges changed into users');

      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: alice.caller, body: { flags: 7 } })).status, 200);
      await bob.client.next((m) => isUpdate(m) && m.event.update.users?.some((u: any) => u.sessionId === alice.signalingId && (u.inCall & 1) === 1));
      assert.equal((await call(p, 'DELETE', `${V4}/call/${token}`, { as: bob.caller })).status, 200);
      await alice.client.next((m) => isUpdate(m) && m.event.update.users?.some((u: any) => u.sessionId === bob.signalingId && u.inCall === 0));

      // A moderator ends it for everyone: `incall` with all:true, accepted by the server. (This
      // server version merges `changed` into `users` before tracking who is in the call, so it
      // has nobody in its call list and forwards nothing to clients for all:true.)
      await p.services.signalingNotifier.idle();
      const [delivered, failed] = [p.services.signalingNotifier.delivered, p.services.signalingNotifier.failed];
      assert.equal((await call(p, 'DELETE', `${V4}/call/${token}`, { as: alice.caller, query: { all: 'true' } })).status, 200);
      await p.services.signalingNotifier.idle();
      assert.equal(p.services.signalingNotifier.failed, failed, 'the server accepted the incall all:true notification');
      assert.ok(p.services.signalingNotifier.delivered > delivered);
    });

    it('participants: a permission change reaches the sessions as a participant update', async () => {
      const token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'HPB perms' })).token;
      await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      const list = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: as('alice') });
      const bobAttendee = list.data.find((x: any) => x.actorId === 'bob');
      const r = await call(p, 'PUT', `${V4}/room/${token}/attendees/permissions`, {
        as: as('alice'),
        body: { attendeeId: bobAttendee.attendeeId, method: 'set', permissions: 1 + 128 },
      });
      assert.equal(r.status, 200, r.text);
      for (const c of [alice.client, bob.client]) {
        const upd = await c.next(
          (m) => isUpdate(m) && m.event.update.users?.some((u: any) => u.sessionId === bob.signalingId && u.participantPermissions === 129),
        );
        const entry = upd.event.update.users.find((u: any) => u.sessionId === bob.signalingId);
        assert.equal(entry.displayName, 'Bob');
        // The media permissions are for the server only.
        assert.ok(!('permissions' in entry), JSON.stringify(entry));
      }
    });

    it('message: chat messages, system messages and reactions are relayed to every session with the comment Talk sends', async () => {
      const token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'HPB chat' })).token;
      await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      const chatEvent = (pred: (data: any) => boolean) => (m: any) =>
        m.type === 'event' && m.event.target === 'room' && m.event.type === 'message' && pred(m.event.message.data);
      const posted = await call(p, 'POST', `/apps/spreed/api/v1/chat/${token}`, { as: as('bob'), body: { message: 'hello over the signaling server' } });
      assert.equal(posted.status, 201, posted.text);
      for (const c of [alice.client, bob.client]) {
        const msg = await c.next(chatEvent((d) => d.chat?.comment?.id === posted.data.id));
        assert.equal(msg.event.message.roomid, token);
        const { comment, ...rest } = msg.event.message.data.chat;
        assert.deepEqual([msg.event.message.data.type, rest], ['chat', { refresh: true }]);
        // The comment is the message as the chat API shows it, plus the common read marker.
        const fromApi = { ...posted.data };
        assert.deepEqual({ ...comment, lastCommonRead: undefined }, { ...fromApi, lastCommonRead: undefined });
        assert.equal(comment.message, 'hello over the signaling server');
        assert.equal(typeof comment.lastCommonRead, 'number');
      }

      // A reaction: the synthetic comment with the reacted message as parent, its count updated.
      assert.equal(
        (await call(p, 'POST', `/apps/spreed/api/v1/reaction/${token}/${posted.data.id}`, { as: as('alice'), body: { reaction: '👍' } })).status,
        201,
      );
      const reaction = await bob.client.next(chatEvent((d) => d.chat?.comment?.systemMessage === 'reaction'));
      assert.equal(reaction.event.message.data.chat.comment.message, '👍');
      assert.equal(reaction.event.message.data.chat.comment.parent.id, posted.data.id);
      assert.deepEqual(reaction.event.message.data.chat.comment.parent.reactions, { '👍': 1 });
      assert.equal(
        (await call(p, 'DELETE', `/apps/spreed/api/v1/reaction/${token}/${posted.data.id}`, { as: as('alice'), body: { reaction: '👍' } })).status,
        200,
      );
      const revoked = await bob.client.next(chatEvent((d) => d.chat?.comment?.systemMessage === 'reaction_revoked'));
      assert.deepEqual(revoked.event.message.data.chat.comment.parent.reactions, {});

      // A call system message carries its comment and whether the call is silent.
      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: alice.caller, body: { flags: 1, silent: true } })).status, 200);
      const started = await bob.client.next(chatEvent((d) => d.chat?.comment?.systemMessage === 'call_started'));
      assert.equal(started.event.message.data.chat.comment.actorId, 'alice');
      assert.deepEqual(started.event.message.data.chat.comment.call, { silent: true });

      // Other system messages (a rename) only ask the clients to refresh.
      assert.equal((await call(p, 'PUT', `${V4}/room/${token}`, { as: as('alice'), body: { roomName: 'HPB chat renamed' } })).status, 200);
      const refresh = await bob.client.next(chatEvent((d) => d.chat && !('comment' in d.chat)));
      assert.deepEqual(refresh.event.message.data, { type: 'chat', chat: { refresh: true } });
    });
  });

  describe(`a signaling server that does not know Parley's address [${dialect}]`, { skip: missing }, () => {
    let p: Parley;
    let hpb: Hpb | undefined;
    let logged = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        logged += String(chunk);
        done();
      },
    });

    before(async () => {
      p = await startParley(dialect, { env: { ...NO_THROTTLE, LOG_LEVEL: 'warn' }, logStream: stream });
      // The backend is configured under another name of the same server: it refuses Parley's
      // notifications (403), which used to vanish without a trace.
      hpb = await startHpb(p.url.replace('127.0.0.1', 'localhost'), SECRET);
      await p.services.serverLists.addServer('signaling_servers', hpb.url.replace(/^http/, 'ws'), SECRET, true);
      await createUser(p, 'alice');
    });

    after(async () => {
      await p?.services.signalingNotifier.idle();
      await hpb?.stop();
      await p?.close();
    });

    it('each refused notification is logged at warn with its status and counted in /metrics', async () => {
      const token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Nobody hears' })).token;
      assert.equal((await call(p, 'PUT', `${V4}/room/${token}`, { as: as('alice'), body: { roomName: 'Renamed' } })).status, 200);
      await p.services.signalingNotifier.idle();
      const lines = logged
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg?.startsWith('signaling server refused a notification'));
      assert.ok(lines.length >= 1, logged);
      assert.equal(lines[0].level, 40, 'warn');
      assert.equal(lines[0].status, 403);
      assert.equal(lines[0].backend, `${p.url}/`);
      assert.equal(lines[0].token, token);
      const metrics = await (await fetch(`${p.url}/metrics`)).text();
      const m = /^parley_signaling_notifications_total\{result="failed",status="403"\} (\d+)$/m.exec(metrics);
      assert.ok(
        m,
        metrics
          .split('\n')
          .filter((l) => l.includes('signaling'))
          .join('\n'),
      );
      assert.equal(Number(m[1]), lines.length);
    });
  });
}
