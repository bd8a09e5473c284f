/**
 * Files bench routes (docs/files.md): what a Talk app does to send a photo, as two requests —
 * the upload (a 16 KiB WebDAV PUT replacing the same file) and the share into a conversation
 * (POST files_sharing shares, shareType 10: posts the `file_shared` message and places the file
 * for the other participant).
 */
import { userAttendeeRow } from '../lib/seed.mjs';

const USER = { user: 'bench-files', password: 'bench-files-password-1' };
const OTHER = 'bench-files-peer';
const BODY = Buffer.alloc(16 * 1024, 7);

async function seed({ services, dist }) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const userRow = await userAttendeeRow(dist);
  await services.directory.createUser({ id: USER.user, password: USER.password, displayName: 'Bench Files' });
  await services.directory.createUser({ id: OTHER, password: `${OTHER}-password-1`, displayName: 'Bench Peer' });
  const cfg = await services.appConfig.snapshot();
  const now = Math.floor(Date.now() / 1000);
  const token = await services.rooms.newToken(cfg);
  await services.rooms.transaction(async (repos) => {
    const id = await repos.rooms.insert({ ...ROOM_DEFAULTS, token, type: 2, name: 'Files', last_activity: now, created_at: now });
    await repos.attendees.insertIgnoringDuplicates([userRow(id, USER.user, 1, now, 'Bench Files'), userRow(id, OTHER, 3, now, 'Bench Peer')]);
  });
  return { token };
}

/** The file exists before the first measured request (so every PUT replaces it, and the share finds it). */
async function prepare({ url, basic, state }) {
  const res = await fetch(`${url}/remote.php/dav/files/${USER.user}/bench.bin`, {
    method: 'PUT',
    body: BODY,
    headers: { Authorization: basic(USER.user, USER.password) },
  });
  if (res.status !== 201 && res.status !== 204) throw new Error(`bench files: upload answered ${res.status}`);
  return state;
}

export default [
  {
    name: 'files-upload',
    seed,
    prepare,
    expectStatus: 204,
    request: ({ basic }) => ({
      method: 'PUT',
      path: `/remote.php/dav/files/${USER.user}/bench.bin`,
      headers: { Authorization: basic(USER.user, USER.password), 'Content-Type': 'application/octet-stream' },
      body: BODY,
    }),
  },
  {
    name: 'files-share',
    seed,
    prepare,
    request: ({ basic, ocs, state }) => ({
      method: 'POST',
      path: '/ocs/v2.php/apps/files_sharing/api/v1/shares?format=json',
      headers: { ...ocs, Authorization: basic(USER.user, USER.password), 'Content-Type': 'application/json' },
      body: JSON.stringify({ shareType: 10, shareWith: state.token, path: '/bench.bin', talkMetaData: JSON.stringify({ caption: 'bench' }) }),
    }),
  },
];
