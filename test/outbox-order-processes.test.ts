/**
 * The outbox's ordered topics across two `parley serve` processes on one database
 * (docs/architecture.md#the-outbox):
 * a conversation's notifications reach the external signaling server in the order the changes
 * happened and one at a time, whichever process made the change and whichever delivers, because
 * one process at a time holds the destination's lease (migration 0880).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { admin, basic, dialects } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses } from './helpers/processes.js';
import { eventually } from './helpers/eventually.js';

const SECRET = 'outbox-order-shared-secret';
const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';

/** A signaling server's backend API that answers slowly and records what arrives, in order. */
async function slowSignalingServer(delayMs: number) {
  const updates: Array<{ token: string; name: string }> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const body = JSON.parse(raw);
      if (body.type === 'update') updates.push({ token: decodeURIComponent(req.url!.split('/').pop()!), name: body.update.properties.name });
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      }, delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    updates,
    mostInFlight: () => mostInFlight,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const hpb = await slowSignalingServer(40);
after(() => hpb.close());

for (const dialect of dialects()) {
  describe(`ordered outbox deliveries across two processes [${dialect}]`, () => {
    const { a, b } = useTwoProcesses(dialect, ['alice']);
    const alice = basic('alice', TWO_PROCESS_PASSWORD);
    let token = '';

    before(async () => {
      const servers = JSON.stringify({ servers: [{ server: hpb.url, verify: false }], secret: SECRET });
      const set = await ocs(a(), 'POST', `${CONFIG}/signaling_servers`, basic(admin.user!, admin.password!), { value: servers });
      assert.equal(set.status, 200);
      const room = await ocs(b(), 'POST', '/apps/spreed/api/v4/room', alice, { roomType: '2', roomName: 'Name 0' });
      assert.equal(room.status, 201);
      token = room.data.token;
    });

    it("a conversation's updates arrive in the order of its renames, one at a time, whichever process renamed it", async () => {
      const names = Array.from({ length: 12 }, (_, i) => `Name ${i + 1}`);
      for (const [i, roomName] of names.entries()) {
        // Each process's worker starts delivering its own rows at once; both sweep the other's.
        const r = await ocs(i % 2 === 0 ? a() : b(), 'PUT', `/apps/spreed/api/v4/room/${token}`, alice, { roomName });
        assert.equal(r.status, 200);
      }
      const mine = () => hpb.updates.filter((u) => u.token === token).map((u) => u.name);
      await eventually('every rename told to the signaling server', async () => mine().includes(names.at(-1)!), 30_000);
      assert.deepEqual(mine(), names);
      assert.equal(hpb.mostInFlight(), 1, 'one notification of the conversation in flight at a time');
    });
  });
}
