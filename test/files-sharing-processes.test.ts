/**
 * Sharing files across processes (docs/files.md#sharing-into-a-conversation): two `parley serve`
 * processes on one database and one DATA_DIR. A photo uploaded through one is shared through the
 * other, and the other participant downloads it by its `path` (and its preview) through the
 * first. SQLite and PostgreSQL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basic, dialects } from './helpers/parley.js';
import { png } from './helpers/images.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses } from './helpers/processes.js';

const ALICE = basic('alice', TWO_PROCESS_PASSWORD);
const BOB = basic('bob', TWO_PROCESS_PASSWORD);

for (const dialect of dialects()) {
  describe(`files shared across two processes [${dialect}]`, () => {
    const { a, b } = useTwoProcesses(dialect, ['alice', 'bob']);

    it('upload through A, share through B, the other participant downloads through A', async () => {
      const photo = png(40, 30, [1, 2, 3]);
      const put = await fetch(`${a().url}/remote.php/dav/files/alice/trip.png`, {
        method: 'PUT',
        body: new Uint8Array(photo),
        headers: { Authorization: ALICE },
      });
      assert.equal(put.status, 201);
      const room = await ocs(b(), 'POST', '/apps/spreed/api/v4/room', ALICE, { roomType: '2', roomName: 'Trip' });
      assert.equal(room.status, 201);
      assert.equal(
        (await ocs(b(), 'POST', `/apps/spreed/api/v4/room/${room.data.token}/participants`, ALICE, { newParticipant: 'bob', source: 'users' })).status,
        200,
      );
      const shared = await ocs(b(), 'POST', '/apps/files_sharing/api/v1/shares', ALICE, {
        shareType: '10',
        shareWith: room.data.token,
        path: '/trip.png',
        talkMetaData: JSON.stringify({ caption: 'From the trip' }),
      });
      assert.equal(shared.status, 200);
      const hist = await ocs(a(), 'GET', `/apps/spreed/api/v1/chat/${room.data.token}?lookIntoFuture=0&limit=1`, BOB);
      const m = hist.data[0];
      assert.equal(m.message, 'From the trip');
      const file = m.messageParameters.file;
      assert.equal(file.path, 'Talk/trip.png');
      const got = await fetch(`${a().url}/remote.php/dav/files/bob/${file.path}`, { headers: { Authorization: BOB } });
      assert.equal(got.status, 200);
      assert.ok(Buffer.from(await got.arrayBuffer()).equals(photo));
      const prev = await fetch(`${b().url}/index.php/core/preview?fileId=${file.id}&x=20&y=20&a=1`, { headers: { Authorization: BOB } });
      assert.equal(prev.status, 200);
    });
  });
}
