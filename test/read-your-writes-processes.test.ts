/**
 * Read-your-writes across processes (docs/architecture.md "Caches across processes"): two real
 * `parley serve` processes on one database (one PostgreSQL schema when PARLEY_TEST_PG is set,
 * and one SQLite file), as behind a load balancer. For each kind of write a client makes, the
 * other process has served (and cached) the old answer first; then the write is answered 2xx
 * by A, and the very next request to B must show it: no retry, no window. On SQLite each request
 * reads the change stamp as it starts; on PostgreSQL each request first confirms that its
 * process has heard every commit made before it arrived (a round trip on the LISTEN connection).
 * Each kind is written several times back and forth. On PostgreSQL, B reaches the database
 * through a proxy that delays its LISTEN connection by 150 ms (a slow path): a notification that
 * arrives late must make B's answer late, never stale.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, basic, dialects } from './helpers/parley.js';
import { TWO_PROCESS_PASSWORD, useTwoProcesses, type Proc } from './helpers/processes.js';
import { RoomType } from './helpers/fixtures.js';
import { stallableProxy, type StallableProxy } from './helpers/stallable-proxy.js';

const V1 = '/apps/spreed/api/v1';
const V4 = '/apps/spreed/api/v4';
const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';
const ADMIN = basic(admin.user!, admin.password!);
const ROUNDS = 4;

interface Answer {
  status: number;
  data: any;
  headers: Headers;
}

/** An OCS JSON request to one process, with Basic auth and optionally a session cookie. */
async function req(p: Proc, method: string, apiPath: string, auth: string, body?: Record<string, string>, cookie?: string): Promise<Answer> {
  const res = await fetch(`${p.url}/ocs/v2.php${apiPath}${apiPath.includes('?') ? '&' : '?'}format=json`, {
    method,
    headers: {
      'OCS-APIRequest': 'true',
      Authorization: auth,
      ...(cookie ? { Cookie: cookie } : {}),
      ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: body ? new URLSearchParams(body).toString() : undefined,
  });
  const text = await res.text();
  return { status: res.status, data: JSON.parse(text).ocs.data, headers: res.headers };
}

function ok(r: Answer, what: string): Answer {
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${JSON.stringify(r.data)}`);
  return r;
}

for (const dialect of dialects()) {
  describe(`a write answered by one process is seen by the next request to the other [${dialect}]`, () => {
    let proxy: StallableProxy | undefined;
    before(async () => {
      if (dialect === 'postgres') proxy = await stallableProxy(process.env.PARLEY_TEST_PG!);
    });
    after(async () => proxy?.close());
    const procs = useTwoProcesses(dialect, ['alice', 'bob', 'carol'], (env): Record<string, string> => {
      if (proxy === undefined) return {};
      proxy.slow(`LISTEN "parley_wake_${env.DATABASE_SCHEMA}"`, 150);
      return { DATABASE_URL: proxy.url };
    });
    const alice = basic('alice', TWO_PROCESS_PASSWORD);
    const bob = basic('bob', TWO_PROCESS_PASSWORD);
    let token = '';

    before(async () => {
      const created = ok(await req(procs.a(), 'POST', `${V4}/room`, alice, { roomType: String(RoomType.GROUP), roomName: 'Both' }), 'create');
      token = created.data.token;
      ok(await req(procs.a(), 'POST', `${V4}/room/${token}/participants`, alice, { newParticipant: 'bob', source: 'users' }), 'add bob');
    });

    /**
     * `read` through B until it is cached (twice), `write(round)` through A, then B's very next
     * `read` must be what A reads now, and differ from before: ROUNDS times.
     */
    async function noWindow<T>(what: string, read: (p: Proc) => Promise<T>, write: (round: number) => Promise<unknown>): Promise<void> {
      for (let round = 0; round < ROUNDS; round++) {
        await read(procs.b());
        const old = await read(procs.b());
        await write(round);
        const seen = await read(procs.b());
        const truth = await read(procs.a());
        assert.notDeepEqual(truth, old, `${what}, round ${round}: the write changed what A reads`);
        assert.deepEqual(seen, truth, `${what}, round ${round}: B's next request after A answered the write`);
      }
    }

    const room = async (p: Proc, who = alice) => ok(await req(p, 'GET', `${V4}/room/${token}`, who), 'GET room').data;

    it('a rename', async () => {
      await noWindow(
        'rename',
        async (p) => (await room(p, bob)).displayName,
        async (i) => ok(await req(procs.a(), 'PUT', `${V4}/room/${token}`, alice, { roomName: `Name ${i}` }), 'rename'),
      );
    });

    it('the lobby', async () => {
      await noWindow(
        'lobby',
        async (p) => (await room(p)).lobbyState,
        async (i) => ok(await req(procs.a(), 'PUT', `${V4}/room/${token}/webinar/lobby`, alice, { state: String((i + 1) % 2) }), 'lobby'),
      );
    });

    it('default permissions', async () => {
      await noWindow(
        'permissions',
        async (p) => (await room(p, bob)).defaultPermissions,
        async (i) => ok(await req(procs.a(), 'PUT', `${V4}/room/${token}/permissions/default`, alice, { permissions: i % 2 ? '0' : '126' }), 'permissions'),
      );
    });

    it('a favorite', async () => {
      await noWindow(
        'favorite',
        async (p) => (await room(p, bob)).isFavorite,
        async (i) => ok(await req(procs.a(), i % 2 ? 'DELETE' : 'POST', `${V4}/room/${token}/favorite`, bob), 'favorite'),
      );
    });

    it('a notification level', async () => {
      await noWindow(
        'notification level',
        async (p) => (await room(p, bob)).notificationLevel,
        async (i) => ok(await req(procs.a(), 'POST', `${V4}/room/${token}/notify`, bob, { level: i % 2 ? '1' : '3' }), 'notify'),
      );
    });

    it('a message and a read marker', async () => {
      let last = 0;
      await noWindow(
        'message',
        async (p) => {
          const r = await room(p, bob);
          return [r.lastMessage?.id, r.unreadMessages];
        },
        async (i) => (last = ok(await req(procs.a(), 'POST', `${V1}/chat/${token}`, alice, { message: `message ${i}` }), 'post').data.id),
      );
      await noWindow(
        'read marker',
        async (p) => {
          const r = await room(p, bob);
          return [r.lastReadMessage, r.unreadMessages];
        },
        async (i) => ok(await req(procs.a(), 'POST', `${V1}/chat/${token}/read`, bob, { lastReadMessage: String(i % 2 ? last : last - 1) }), 'read'),
      );
    });

    it('a reaction', async () => {
      const id = ok(await req(procs.a(), 'POST', `${V1}/chat/${token}`, alice, { message: 'react to me' }), 'post').data.id;
      await noWindow(
        'reaction',
        async (p) => (await room(p)).lastMessage.reactions,
        async (i) => ok(await req(procs.a(), i % 2 ? 'DELETE' : 'POST', `${V1}/reaction/${token}/${id}`, bob, { reaction: '👍' }), 'reaction'),
      );
    });

    it('a call join and leave', async () => {
      const entered = ok(await req(procs.a(), 'POST', `${V4}/room/${token}/participants/active`, alice), 'join the conversation');
      const cookie = /parley_session=[^;]+/.exec(entered.headers.get('set-cookie') ?? '')?.[0];
      assert.ok(cookie, 'a session cookie');
      await noWindow(
        'call',
        async (p) => {
          const r = await room(p, bob);
          const inCall = ok(await req(p, 'GET', `${V4}/room/${token}/participants`, bob), 'participants').data.find((x: any) => x.actorId === 'alice')?.inCall;
          return [r.hasCall, inCall];
        },
        async (i) => ok(await req(procs.a(), i % 2 ? 'DELETE' : 'POST', `${V4}/call/${token}`, alice, i % 2 ? undefined : { flags: '3' }, cookie), 'call'),
      );
    });

    it('a display name', async () => {
      await noWindow(
        'display name',
        async (p) => ok(await req(p, 'GET', '/cloud/user', alice), 'user').data.displayname,
        async (i) => ok(await req(procs.a(), 'PUT', '/cloud/users/alice', alice, { key: 'displayname', value: `Alice ${i}` }), 'display name'),
      );
    });

    it('app config: the capabilities and their hash header', async () => {
      await noWindow(
        'app config',
        async (p) => {
          const r = ok(await req(p, 'GET', '/cloud/capabilities', bob), 'capabilities');
          return [r.data.capabilities.spreed.config.previews['max-gif-size'], r.headers.get('x-service-hash')];
        },
        async (i) => ok(await req(procs.a(), 'POST', `${CONFIG}/max_gif_size`, ADMIN, { value: String(1000 + i) }), 'config'),
      );
    });

    it("a disabled account's login, and enabled again", async () => {
      const carol = basic('carol', TWO_PROCESS_PASSWORD);
      await noWindow(
        'disable',
        async (p) => (await req(p, 'GET', '/cloud/capabilities', carol)).status,
        async (i) => ok(await req(procs.a(), 'PUT', `/cloud/users/carol/${i % 2 ? 'enable' : 'disable'}`, ADMIN), 'disable'),
      );
    });
  });
}
