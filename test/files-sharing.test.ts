/**
 * Files shared into conversations as a Talk app does it (docs/files.md#sharing-into-a-conversation,
 * docs/reference/files.md): upload (plain and chunked), share with a caption through the
 * files_sharing API, the other participant sees the message with its `{file}` object, downloads
 * by its `path` over WebDAV and gets a preview; a guest of a public conversation downloads
 * through the link; a non-participant gets 404; a voice message shows as one and in the shared
 * items; deleting the message unshares it. Bad input: 4xx, nothing written. SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, basic, dialects, passwordOf } from './helpers/parley.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { joinGuest, seedUser, setRoom } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';
import { decoded, png } from './helpers/images.js';

const SHARES = '/apps/files_sharing/api/v1/shares';
const CHAT = '/apps/spreed/api/v1/chat';

for (const dialect of dialects()) {
  describe(`files shared into conversations [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'], env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' } });
    let room: { token: string };
    let pub: { token: string };
    const auth = (user: string) => ({ Authorization: basic(user, passwordOf(user)) });
    const dav = (user: string, path: string, init: RequestInit = {}) =>
      fetch(`${t.p.url}/remote.php/dav/files/${user}/${path}`, { ...init, headers: { ...auth(user), ...(init.headers as Record<string, string>) } });
    async function upload(user: string, path: string, body: Buffer) {
      const res = await dav(user, path, { method: 'PUT', body: new Uint8Array(body) });
      assert.ok(res.status === 201 || res.status === 204, `upload ${res.status}`);
    }
    const share = (user: string, body: Record<string, unknown>) => t.call('POST', SHARES, { as: as(user), body: { shareType: 10, ...body } });

    before(async () => {
      room = (await t.newRoom('alice', { type: RoomType.GROUP, name: 'Photos', members: ['bob'] })).record;
      pub = (await t.newRoom('alice', { type: RoomType.PUBLIC, name: 'Open' })).record;
    });

    it('capabilities: files_sharing api, attachments allowed for users (not guests), voice-message-sharing and media-caption', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(caps.data.capabilities.files_sharing.api_enabled, true);
      const spreed = caps.data.capabilities.spreed;
      assert.equal(spreed.config.attachments.allowed, true);
      assert.equal(spreed.config.attachments.folder, '/Talk');
      assert.ok(spreed.features.includes('voice-message-sharing'));
      assert.ok(spreed.features.includes('media-caption'));
      const guest = await t.call('GET', '/cloud/capabilities');
      assert.equal(guest.data.capabilities.spreed.config.attachments.allowed, false);
    });

    it('a photo shared with a caption: the message, the other participant reads it at its path and gets a preview', async () => {
      await upload('alice', 'photo.png', png(120, 80, [10, 200, 30]));
      const r = await share('alice', {
        shareWith: room.token,
        path: '/photo.png',
        referenceId: 'ref-photo',
        talkMetaData: JSON.stringify({ caption: '  Look at this  ' }),
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.share_type, 10);
      assert.equal(r.data.share_with, room.token);
      assert.equal(r.data.path, '/photo.png');
      assert.equal(r.data.item_type, 'file');
      assert.equal(r.data.token, null, 'no link token outside public conversations');

      const [m] = await t.history(room.token, 'bob', 1);
      assert.equal(m.message, 'Look at this');
      assert.equal(m.messageType, 'comment');
      assert.equal(m.systemMessage, '');
      assert.equal(m.referenceId, 'ref-photo');
      const file = m.messageParameters.file;
      assert.equal(file.type, 'file');
      assert.equal(file.name, 'photo.png');
      assert.equal(file.path, 'Talk/photo.png', "bob's path: his attachment folder");
      assert.equal(file.mimetype, 'image/png');
      assert.equal(file['preview-available'], 'yes');
      assert.equal(file.width, '120');
      assert.equal(file.height, '80');
      assert.match(file.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);
      assert.match(file.link, new RegExp(`/index\\.php/f/${file.id}$`));
      const own = (await t.history(room.token, 'alice', 1))[0].messageParameters.file;
      assert.equal(own.path, 'photo.png', "the owner's own path");

      const got = await dav('bob', file.path);
      assert.equal(got.status, 200);
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), png(120, 80, [10, 200, 30]));
      const list = await dav('bob', 'Talk', { method: 'PROPFIND', headers: { Depth: '1' } });
      assert.equal(list.status, 207);
      const xml = await list.text();
      assert.match(xml, /<d:href>\/remote\.php\/dav\/files\/bob\/Talk\/photo\.png<\/d:href>/);
      assert.match(xml, /<oc:permissions>SG<\/oc:permissions>/);
      // Read-only where it appears: nothing written, the owner's file unchanged.
      assert.equal((await dav('bob', file.path, { method: 'PUT', body: 'overwritten' })).status, 403);
      assert.equal((await dav('bob', file.path, { method: 'DELETE' })).status, 403);
      assert.equal((await dav('bob', file.path, { method: 'MOVE', headers: { Destination: `${t.p.url}/remote.php/dav/files/bob/mine.png` } })).status, 403);
      assert.equal(await t.services.files.stat('bob', file.path), undefined);

      const prev = await fetch(`${t.p.url}/index.php/core/preview?fileId=${file.id}&x=60&y=60&a=1`, { headers: auth('bob') });
      assert.equal(prev.status, 200);
      assert.equal((await decoded(Buffer.from(await prev.arrayBuffer()))).width, 60);

      // carol is not in the conversation: nothing.
      assert.equal((await fetch(`${t.p.url}/index.php/core/preview?fileId=${file.id}&x=60&y=60`, { headers: auth('carol') })).status, 404);
      assert.equal((await dav('carol', 'Talk/photo.png')).status, 404);
      assert.equal((await t.call('GET', `${SHARES}/${r.data.id}`, { as: as('carol') })).status, 404);
      assert.equal((await share('carol', { shareWith: room.token, path: '/photo.png' })).status, 404, "not carol's file");
      await upload('carol', 'c.txt', Buffer.from('c'));
      assert.equal((await share('carol', { shareWith: room.token, path: '/c.txt' })).status, 404, 'carol is not a participant');

      // GET the share (as owner and recipient) and the lists.
      const one = await t.call('GET', `${SHARES}/${r.data.id}`, { as: as('bob') });
      assert.equal(one.status, 200);
      assert.equal(one.data[0].path, '/Talk/photo.png');
      const mine = await t.call('GET', SHARES, { as: as('alice'), query: { path: '/photo.png' } });
      assert.deepEqual(
        mine.data.map((s: any) => s.id),
        [r.data.id],
      );
      const received = await t.call('GET', SHARES, { as: as('bob'), query: { shared_with_me: 'true' } });
      assert.ok(received.data.some((s: any) => s.id === r.data.id));

      // The caption can be edited (media-caption).
      const edit = await t.call('PUT', `${CHAT}/${room.token}/${m.id}`, { as: as('alice'), body: { message: 'Better caption' } });
      assert.equal(edit.status, 200, edit.text);
      assert.equal(edit.data.parent.message, 'Better caption');
      assert.equal(edit.data.parent.messageParameters.file.name, 'photo.png');
    });

    it('a chunked upload shared into a public conversation: a guest downloads and previews through the link', async () => {
      const body = png(64, 48, [200, 10, 10]);
      const base = `${t.p.url}/remote.php/dav/uploads/alice/up-1`;
      const dest = `${t.p.url}/remote.php/dav/files/alice/chunked.png`;
      assert.equal((await fetch(base, { method: 'MKCOL', headers: { ...auth('alice'), Destination: dest } })).status, 201);
      const half = Math.floor(body.length / 2);
      assert.equal((await fetch(`${base}/00002`, { method: 'PUT', body: new Uint8Array(body.subarray(half)), headers: auth('alice') })).status, 201);
      assert.equal((await fetch(`${base}/00001`, { method: 'PUT', body: new Uint8Array(body.subarray(0, half)), headers: auth('alice') })).status, 201);
      const mv = await fetch(`${base}/.file`, { method: 'MOVE', headers: { ...auth('alice'), Destination: dest, 'OC-Total-Length': String(body.length) } });
      assert.equal(mv.status, 201);
      const r = await share('alice', { shareWith: pub.token, path: 'chunked.png' });
      assert.equal(r.status, 200, r.text);
      assert.match(r.data.token, /^[A-Za-z0-9]{15}$/);
      const guest = await joinGuest(t.p, pub.token);
      const hist = await t.call('GET', `${CHAT}/${pub.token}`, { as: guest.caller, query: { lookIntoFuture: 0, limit: 1 } });
      const file = hist.data[0].messageParameters.file;
      assert.equal(file.path, 'chunked.png', 'guests see the name');
      assert.match(file.link, new RegExp(`/index\\.php/s/${r.data.token}$`));
      const down = await fetch(`${file.link}/download`);
      assert.equal(down.status, 200);
      assert.deepEqual(Buffer.from(await down.arrayBuffer()), body);
      const page = await fetch(file.link);
      assert.equal(page.status, 200);
      const prev = await fetch(`${t.p.url}/index.php/apps/files_sharing/publicpreview/${r.data.token}?x=32&y=32&a=1`);
      assert.equal(prev.status, 200);
      assert.equal((await fetch(`${t.p.url}/index.php/s/nosuchtoken1234/download`)).status, 404);
      // A share of a conversation that is not public has no link.
      const priv = await share('alice', { shareWith: room.token, path: 'chunked.png' });
      const privLink = (await t.history(room.token, 'alice', 1))[0].messageParameters.file;
      assert.equal(priv.status, 200);
      const token = (await t.services.repos.fileShares.findById(Number(priv.data.id)))!.token;
      assert.equal((await fetch(`${t.p.url}/index.php/s/${token}/download`)).status, 404);
      assert.equal(privLink.path, 'chunked.png');
    });

    it('a voice message shows as one and in the shared items; deleting the message unshares it', async () => {
      await upload('bob', 'voice.mp3', Buffer.from('ID3 not really audio'));
      const r = await share('bob', { shareWith: room.token, path: 'voice.mp3', talkMetaData: JSON.stringify({ messageType: 'voice-message', silent: true }) });
      assert.equal(r.status, 200, r.text);
      const [m] = await t.history(room.token, 'alice', 1);
      assert.equal(m.messageType, 'voice-message');
      assert.equal(m.message, '{file}');
      assert.equal(m.silent, true);
      assert.equal(m.isReplyable, true);
      const voice = await t.call('GET', `${CHAT}/${room.token}/share`, { as: as('alice'), query: { objectType: 'voice' } });
      assert.deepEqual(Object.keys(voice.data), [String(m.id)]);
      const overview = await t.call('GET', `${CHAT}/${room.token}/share/overview`, { as: as('alice') });
      assert.equal(overview.data.voice.length, 1);
      assert.equal(overview.data.media.length, 2, 'the photos');
      const path = m.messageParameters.file.path;
      assert.equal(path, 'Talk/voice.mp3');
      assert.equal((await dav('alice', path)).status, 200);
      // A voice message of another type is a comment, listed as audio.
      await upload('bob', 'voice.ogg', Buffer.from('OggS'));
      await share('bob', { shareWith: room.token, path: 'voice.ogg', talkMetaData: JSON.stringify({ messageType: 'voice-message' }) });
      assert.equal((await t.history(room.token, 'alice', 1))[0].messageType, 'comment');
      const audio = await t.call('GET', `${CHAT}/${room.token}/share`, { as: as('alice'), query: { objectType: 'audio' } });
      assert.equal(Object.keys(audio.data).length, 1);

      const del = await t.call('DELETE', `${CHAT}/${room.token}/${m.id}`, { as: as('bob') });
      assert.equal(del.status, 200, del.text);
      assert.equal((await dav('alice', path)).status, 404, 'unshared with its message');
      assert.equal((await t.call('GET', `${SHARES}/${r.data.id}`, { as: as('bob') })).status, 404);
      assert.equal((await dav('bob', 'voice.mp3')).status, 200, 'the owner keeps the file');
    });

    it('removing a participant takes the file away; unsharing shows the message as no longer available', async () => {
      await upload('alice', 'doc.txt', Buffer.from('hello'));
      const r = await share('alice', { shareWith: room.token, path: 'doc.txt' });
      const [shared] = await t.history(room.token, 'bob', 1);
      const file = shared.messageParameters.file;
      assert.equal((await dav('bob', file.path)).status, 200);
      const bobAttendee = (await t.services.repos.attendees.find((await t.services.repos.rooms.findByToken(room.token))!.id, 'users', 'bob'))!;
      const kick = await t.call('DELETE', `/apps/spreed/api/v4/room/${room.token}/attendees`, { as: as('alice'), body: { attendeeId: bobAttendee.id } });
      assert.equal(kick.status, 200, kick.text);
      assert.equal((await dav('bob', file.path)).status, 404);
      assert.equal((await fetch(`${t.p.url}/index.php/core/preview?fileId=${file.id}`, { headers: auth('bob') })).status, 404);
      await seedUser(t.p, room.token, 'bob');
      assert.equal((await dav('bob', file.path)).status, 200, 'back in, the file is back');
      const del = await t.call('DELETE', `${SHARES}/${r.data.id}`, { as: as('bob') });
      assert.equal(del.status, 403, "bob cannot unshare alice's file");
      assert.equal((await t.call('DELETE', `${SHARES}/${r.data.id}`, { as: as('alice') })).status, 200);
      const m = (await t.history(room.token, 'bob', 10)).find((x) => x.id === shared.id);
      assert.equal(m.systemMessage, 'file_shared');
      assert.equal(m.message, '{actor} shared a file which is no longer available');
      assert.equal((await dav('bob', file.path)).status, 404);
    });

    it('the attachment folder setting: a folder of the own tree, created when missing; a file in the way is 400; received files land there', async () => {
      const set = (value: string) => t.call('POST', '/apps/spreed/api/v1/settings/user', { as: as('bob'), body: { key: 'attachment_folder', value } });
      await upload('bob', 'notes.txt', Buffer.from('n'));
      const refused = await set('/notes.txt/inbox');
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.data.error, 'value');
      assert.equal((await set('/notes.txt')).status, 400);
      assert.equal((await set('/Chat/Received')).status, 200);
      const folder = await dav('bob', 'Chat/Received', { method: 'PROPFIND', headers: { Depth: '0' } });
      assert.equal(folder.status, 207, 'created');
      await upload('alice', 'later.txt', Buffer.from('later'));
      assert.equal((await share('alice', { shareWith: room.token, path: 'later.txt' })).status, 200);
      assert.equal((await t.history(room.token, 'bob', 1))[0].messageParameters.file.path, 'Chat/Received/later.txt');
      // Another file of the same name gets its own place.
      await dav('alice', 'Sub', { method: 'MKCOL' });
      await upload('alice', 'Sub/later.txt', Buffer.from('again'));
      assert.equal((await share('alice', { shareWith: room.token, path: 'Sub/later.txt' })).status, 200);
      const second = (await t.history(room.token, 'bob', 1))[0].messageParameters.file.path;
      assert.equal(second, 'Chat/Received/later (2).txt');
      assert.equal(await (await dav('bob', second)).text(), 'again');
    });

    it('a folder can be shared: its {file} object is a directory (as nc_py_api reads it), PROPFIND shows it to the participant', async () => {
      await dav('alice', 'Album', { method: 'MKCOL' });
      const r = await share('alice', { shareWith: room.token, path: '/Album/' });
      assert.equal(r.status, 200, r.text);
      const file = (await t.history(room.token, 'bob', 1))[0].messageParameters.file;
      assert.equal(file.mimetype, 'httpd/unix-directory');
      assert.equal(file.path, 'Chat/Received/Album');
      assert.equal((await dav('bob', file.path, { method: 'PROPFIND', headers: { Depth: '0' } })).status, 207);
      assert.equal((await dav('bob', file.path)).status, 405, 'a folder has no bytes');
    });

    it('expiry, a deleted conversation and a deleted owner take shares away', async () => {
      const short = (await t.newRoom('alice', { type: RoomType.GROUP, name: 'Short', members: ['bob'] })).record;
      await setRoom(t.p, short.token, { message_expiration: 3 });
      await upload('alice', 'brief.txt', Buffer.from('brief'));
      const r = await share('alice', { shareWith: short.token, path: 'brief.txt' });
      assert.equal(r.status, 200, r.text);
      assert.match(r.data.expiration, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      const target = (await t.services.repos.fileShares.targetsOf('bob', [Number(r.data.id)]))[0].path;
      assert.equal((await dav('bob', target)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 4100));
      assert.equal((await dav('bob', target)).status, 404, 'expired with its message');
      const job = jobs.find((j) => j.name === 'message-expiration')!;
      assert.match((await runJobIfDue(t.services, job, true)).summary ?? '', /1 file shares removed/);
      assert.equal(await t.services.repos.fileShares.findById(Number(r.data.id)), undefined);

      const gone = (await t.newRoom('alice', { type: RoomType.GROUP, name: 'Gone', members: ['bob'] })).record;
      const s2 = await share('alice', { shareWith: gone.token, path: 'brief.txt' });
      assert.equal((await t.call('DELETE', `/apps/spreed/api/v4/room/${gone.token}`, { as: as('alice') })).status, 200);
      assert.equal(await t.services.repos.fileShares.findById(Number(s2.data.id)), undefined, 'gone with the conversation');
      assert.equal((await dav('alice', 'brief.txt')).status, 200, 'the owner keeps the file');

      await t.newUser('dora');
      const dorasRoom = (await t.newRoom('dora', { type: RoomType.GROUP, name: 'Dora', members: ['bob'] })).record;
      await upload('dora', 'd.txt', Buffer.from('d'));
      const s3 = await share('dora', { shareWith: dorasRoom.token, path: 'd.txt' });
      const path3 = (await t.history(dorasRoom.token, 'bob', 1))[0].messageParameters.file.path;
      assert.equal((await dav('bob', path3)).status, 200);
      assert.equal((await t.call('DELETE', '/cloud/users/dora', { as: admin })).status, 200);
      assert.equal(await t.services.repos.fileShares.findById(Number(s3.data.id)), undefined, 'gone with its owner');
      assert.equal((await dav('bob', path3)).status, 404);
    });

    it('bad input: unknown share types, paths with .. or NUL, missing paths are 4xx and post nothing', async () => {
      const before = (await t.history(room.token, 'alice', 1))[0].id;
      const cases: Array<[Record<string, unknown>, number]> = [
        [{ shareType: 0, shareWith: 'bob', path: 'doc.txt' }, 400],
        [{ shareType: 3, path: 'doc.txt' }, 400],
        [{ shareType: 99, shareWith: room.token, path: 'doc.txt' }, 400],
        [{ shareType: 'ten', shareWith: room.token, path: 'doc.txt' }, 400],
        [{ shareWith: room.token, path: '../bob/voice.mp3' }, 404],
        [{ shareWith: room.token, path: '/Talk/../doc.txt' }, 404],
        [{ shareWith: room.token, path: 'doc%2e%2e/doc.txt' }, 404],
        [{ shareWith: room.token, path: 'doc.txt\u0000' }, 400],
        [{ shareWith: room.token, path: '' }, 404],
        [{ shareWith: room.token, path: '/' }, 404],
        [{ shareWith: 'nosuchroom', path: 'doc.txt' }, 404],
        [{ shareWith: room.token, path: 'doc.txt', talkMetaData: '\u0000' }, 400],
      ];
      for (const [body, status] of cases) {
        const r = await t.call('POST', SHARES, { as: as('alice'), body: { shareType: 10, ...body } });
        assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      }
      assert.equal((await t.call('GET', `${SHARES}/abc`, { as: as('alice') })).status, 404);
      assert.equal((await t.call('GET', `${SHARES}/99999`, { as: as('alice') })).status, 404);
      assert.equal((await t.call('POST', SHARES, { body: { shareType: 10, shareWith: room.token, path: 'doc.txt' } })).status, 401);
      // A MOVE onto a folder is refused and changes nothing.
      const mv = await dav('alice', 'doc.txt', { method: 'MOVE', headers: { Destination: `${t.p.url}/remote.php/dav/files/alice/Talk`, Overwrite: 'F' } });
      assert.equal(mv.status, 412);
      assert.equal((await dav('alice', 'doc.txt')).status, 200);
      assert.equal((await t.history(room.token, 'alice', 1))[0].id, before, 'nothing posted');
    });
  });
}
