/**
 * `parley talk:stun|turn|signaling|recording:add|delete|list` (docs/operators.md "Talk commands"),
 * run as real processes against the database of a running Parley, whose API sees each change at
 * once. A refused command prints `error: ...`, exits 1 and changes nothing. Commands run in this
 * process (runCli) except one real process per database, which checks the binary's exit codes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, dialects } from './helpers/parley.js';
import { expectRefusal, runCli, spawnCli, type Run } from './helpers/cli.js';
import { useParley } from './helpers/fixtures.js';

const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';

for (const dialect of dialects()) {
  describe(`talk:* server commands [${dialect}]`, () => {
    const t = useParley(dialect);

    const parley = (...args: string[]) => runCli(t.p.env, args);
    const ok = (r: Run) => assert.equal(r.code, 0, r.stdout + r.stderr);
    // What is stored, read from the table: the commands run with services of their own, whose
    // writes this process's cached snapshot sees once their notification arrived (PostgreSQL).
    const stored = async (key: string) => (await t.p.services.repos.appConfig.all()).get(key);

    it('the real binary exits 0 on success and 1 with `error:` on a refusal', async () => {
      const good = await spawnCli(t.p.env, ['talk:stun:add', 'stun.binary.example:443']);
      assert.equal(good.code, 0, good.stderr);
      assert.equal(good.stdout, 'Added stun.binary.example:443.\n');
      const bad = await spawnCli(t.p.env, ['talk:stun:add', 'stun.binary.example:443']);
      expectRefusal(bad, /already configured/);
      assert.equal(await stored('stun_servers'), '["stun.binary.example:443"]');
      ok(await parley('talk:stun:delete', 'stun.binary.example:443'));
    });

    it('talk:stun:add, list and delete; the API sees the change; bad input changes nothing', async () => {
      ok(await parley('talk:stun:add', 'stun.example.org:3478'));
      const api = await t.call('GET', `${CONFIG}/stun_servers`, { as: admin });
      assert.deepEqual(JSON.parse(api.data.data), ['stun.example.org:3478']);

      const json = await parley('talk:stun:list', '--output=json');
      ok(json);
      assert.deepEqual(JSON.parse(json.stdout), ['stun.example.org:3478']);

      expectRefusal(await parley('talk:stun:add', 'https://not-a-host-port'), /host:port/);
      expectRefusal(await parley('talk:stun:delete', 'other.example.org:1'), /no STUN server/);
      expectRefusal(await parley('talk:stun:list', '--output=xml'), /--output must be one of plain, json, json_pretty/);
      assert.equal(await stored('stun_servers'), '["stun.example.org:3478"]');

      ok(await parley('talk:stun:delete', 'stun.example.org:3478'));
      assert.equal(await stored('stun_servers'), '[]');
    });

    it('talk:turn:add with --secret or --generate-secret; secrets never listed', async () => {
      ok(await parley('talk:turn:add', 'turn,turns', 'turn.example.org:3478', 'udp,tcp', '--secret=turn-secret-1'));
      expectRefusal(await parley('talk:turn:add', 'turn', 'turn2.example.org:3478', 'udp'), /--secret or --generate-secret/);
      expectRefusal(await parley('talk:turn:add', 'stun', 'turn2.example.org:3478', 'udp', '--secret=x'), /schemes must be one of/);
      expectRefusal(await parley('talk:turn:add', 'turn', 'turn2.example.org:3478', 'sctp', '--secret=x'), /protocols must be one of/);
      expectRefusal(await parley('talk:turn:add', 'turn', 'turn:turn2.example.org:3478', 'udp', '--secret=x'), /without a turn: or turns: prefix/);
      expectRefusal(await parley('talk:turn:add', 'turn', 'turn2.example.org:3478', 'udp', '--secret=x', '--generate-secret'), /either/);
      const gen = await parley('talk:turn:add', 'turns', 'turn2.example.org:5349', 'tcp', '--generate-secret');
      ok(gen);
      const secret = /Generated secret: (\S+)/.exec(gen.stdout)![1];
      assert.equal(secret.length, 32);

      const list = JSON.parse((await parley('talk:turn:list', '--output=json')).stdout);
      assert.deepEqual(
        list.map((t: any) => [t.schemes, t.server, t.protocols]),
        [
          ['turn,turns', 'turn.example.org:3478', 'udp,tcp'],
          ['turns', 'turn2.example.org:5349', 'tcp'],
        ],
      );
      const plain = await parley('talk:turn:list');
      assert.ok(!plain.stdout.includes('turn-secret-1') && !plain.stdout.includes(secret), plain.stdout);
      assert.ok(!JSON.stringify(list).includes('turn-secret-1'));
      assert.deepEqual(
        JSON.parse((await stored('turn_servers'))!).map((t: any) => t.secret),
        ['turn-secret-1', secret],
      );

      expectRefusal(await parley('talk:turn:delete', 'turn', 'turn.example.org:3478', 'udp'), /no TURN server/);
      ok(await parley('talk:turn:delete', 'turn,turns', 'turn.example.org:3478', 'udp,tcp'));
      assert.equal(JSON.parse((await stored('turn_servers'))!).length, 1);
    });

    it('talk:signaling:add --verify, list (secret hidden), delete', async () => {
      ok(await parley('talk:signaling:add', 'https://hpb.example.org', 'hpb-secret-1', '--verify'));
      expectRefusal(await parley('talk:signaling:add', 'ftp://hpb.example.org', 'x'), /http\(s\) or ws\(s\) URL/);
      // Talk's own example is a wss:// URL.
      ok(await parley('talk:signaling:add', 'wss://hpb2.example.org', 'hpb-secret-1'));
      ok(await parley('talk:signaling:delete', 'wss://hpb2.example.org'));
      expectRefusal(await parley('talk:signaling:add', 'https://hpb.example.org', 'x'), /already configured/);
      const pretty = await parley('talk:signaling:list', '--output=json_pretty');
      ok(pretty);
      assert.match(pretty.stdout, /\n {4}"servers"/);
      assert.deepEqual(JSON.parse(pretty.stdout), { servers: [{ server: 'https://hpb.example.org', verify: true }], secret: '***REMOVED SENSITIVE VALUE***' });
      assert.deepEqual(JSON.parse((await stored('signaling_servers'))!), {
        servers: [{ server: 'https://hpb.example.org', verify: true }],
        secret: 'hpb-secret-1',
      });
      expectRefusal(await parley('talk:signaling:delete', 'https://other.example.org'), /no server/);
      ok(await parley('talk:signaling:delete', 'https://hpb.example.org'));
      assert.deepEqual(JSON.parse((await stored('signaling_servers'))!).servers, []);
    });

    it('talk:recording:add, list, delete', async () => {
      ok(await parley('talk:recording:add', 'https://rec.example.org', 'rec-secret-1'));
      const plain = await parley('talk:recording:list');
      assert.equal(plain.stdout, '  - https://rec.example.org (verify: no)\n  - secret: set\n');
      expectRefusal(await parley('talk:recording:add', 'https://rec2.example.org', ''), /must not be empty/);
      ok(await parley('talk:recording:delete', 'https://rec.example.org'));
      assert.equal((await parley('talk:recording:list')).stdout, '  - secret: set\n');
    });
  });
}
