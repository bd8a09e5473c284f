/**
 * A user's new display name reaches every conversation that shows it, on every process: the
 * participant list (attendee rows, as Talk's ParticipantService::updateDisplayNameForActor), the
 * one-to-one conversation's name, the author of their messages and their polls. Two real
 * `parley serve` processes on one database; the rename goes through A, the reads through B,
 * whose rendered answers were warmed before (SQLite: the next request shows it; PostgreSQL: once
 * the commit's notification arrived, within a bound).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, basic, dialects } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses, type Proc } from './helpers/processes.js';
import { seenAcross } from './helpers/eventually.js';

const ADMIN = basic(admin.user!, admin.password!);
const ALICE = basic('alice', TWO_PROCESS_PASSWORD);
const BOB = basic('bob', TWO_PROCESS_PASSWORD);
const V4 = '/apps/spreed/api/v4';
const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`a renamed user's name across two processes [${dialect}]`, () => {
    const procs = useTwoProcesses(dialect, ['alice', 'bob']);

    const participantName = async (p: Proc, token: string) => {
      const r = await ocs(p, 'GET', `${V4}/room/${token}/participants`, ALICE);
      assert.equal(r.status, 200);
      return (r.data as any[]).find((x) => x.actorId === 'bob')?.displayName as string;
    };
    const oneToOneName = async (p: Proc, token: string) => (await ocs(p, 'GET', `${V4}/room/${token}`, ALICE)).data.displayName as string;
    const authorName = async (p: Proc, token: string, id: number) =>
      ((await ocs(p, 'GET', `${V1}/chat/${token}?lookIntoFuture=0&limit=50`, ALICE)).data as any[]).find((m) => m.id === id)?.actorDisplayName as string;
    const pollAuthor = async (p: Proc, token: string, pollId: number) =>
      (await ocs(p, 'GET', `${V1}/poll/${token}/${pollId}`, ALICE)).data.actorDisplayName as string;

    it('the participant list, the one-to-one name, messages and polls show the new name on the other process', async () => {
      const a = procs.a();
      const b = procs.b();
      assert.equal((await ocs(a, 'PUT', '/cloud/users/bob', ADMIN, { key: 'displayname', value: 'Bob Before' })).status, 200);
      const group = (await ocs(a, 'POST', `${V4}/room`, ALICE, { roomType: '2', roomName: 'Crew' })).data.token as string;
      assert.equal((await ocs(a, 'POST', `${V4}/room/${group}/participants`, ALICE, { newParticipant: 'bob', source: 'users' })).status, 200);
      const one = (await ocs(a, 'POST', `${V4}/room`, ALICE, { roomType: '1', invite: 'bob' })).data.token as string;
      const said = await ocs(a, 'POST', `${V1}/chat/${group}`, BOB, { message: 'hello' });
      assert.equal(said.status, 201);
      const poll = await ocs(
        a,
        'POST',
        `${V1}/poll/${group}`,
        BOB,
        new URLSearchParams([
          ['question', 'Lunch?'],
          ['options[]', 'yes'],
          ['options[]', 'no'],
        ]),
      );
      assert.equal(poll.status, 201);

      // Both processes have read (and kept) every answer with the old name.
      for (const p of [a, b, a, b]) {
        assert.equal(await participantName(p, group), 'Bob Before');
        assert.equal(await oneToOneName(p, one), 'Bob Before');
        assert.equal(await authorName(p, group, said.data.id), 'Bob Before');
        assert.equal(await pollAuthor(p, group, poll.data.id), 'Bob Before');
      }

      assert.equal((await ocs(a, 'PUT', '/cloud/users/bob', ADMIN, { key: 'displayname', value: 'Robert After' })).status, 200);
      const renamed = (v: string) => v === 'Robert After';
      await seenAcross(dialect, 'participant list', () => participantName(b, group), renamed);
      await seenAcross(dialect, 'one-to-one name', () => oneToOneName(b, one), renamed);
      await seenAcross(dialect, 'message author', () => authorName(b, group, said.data.id), renamed);
      await seenAcross(dialect, 'poll author', () => pollAuthor(b, group, poll.data.id), renamed);
      // The writing process shows it at once.
      assert.equal(await participantName(a, group), 'Robert After');
      // Stored: a process that never read it before (any new process) reads the new name from the rows.
      assert.equal(await participantName(a, one), 'Robert After');
    });
  });
}
