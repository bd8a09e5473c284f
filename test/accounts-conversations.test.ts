/**
 * Accounts as Nextcloud manages them, seen from conversations: renaming a group
 * (`PUT /cloud/groups/{groupid}`, key=displayname) renames its attendees; deleting a user
 * through the API or the CLI deletes the conversations where they were the last user (as
 * `talk:user:remove` does) and the rows Nextcloud deletes with an account.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { runCli } from './helpers/cli.js';
import { attendeesOf, createRoom, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`accounts and conversations [${dialect}]`, () => {
    const t = useParley(dialect);
    before(async () => {
      for (const u of ['alice', 'bob', 'carol']) await createUser(t.p, u, { groups: ['crew'] });
    });

    it('PUT /cloud/groups/{groupid} key=displayname renames the group and its attendees', async () => {
      const room = await t.call('POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.GROUP, invite: 'crew' } });
      assert.equal(room.status, 201, room.text);
      const r = await t.call('PUT', '/cloud/groups/crew', { as: admin, form: { key: 'displayname', value: 'The Crew' } });
      assert.equal(r.status, 200, r.text);
      assert.equal((await t.p.services.directory.groups.find('crew'))!.display_name, 'The Crew');
      const list = await t.call('GET', `${V4}/room/${room.data.token}/participants`, { as: as('alice') });
      assert.equal(list.data.find((x: any) => x.actorType === 'groups').displayName, 'The Crew');
      const refusals: Array<[string, Record<string, string>, number, string]> = [
        ['/cloud/groups/nogroup', { key: 'displayname', value: 'x' }, 404, 'groupid'],
        ['/cloud/groups/crew', { key: 'members', value: 'x' }, 400, 'key'],
        ['/cloud/groups/crew', { key: 'displayname', value: '' }, 400, 'displayname'],
      ];
      for (const [path, form, status, error] of refusals) {
        const res = await t.call('PUT', path, { as: admin, form });
        assert.deepEqual([res.status, res.data.error], [status, error], JSON.stringify(form));
      }
      assert.equal((await t.call('PUT', '/cloud/groups/crew', { as: as('bob'), form: { key: 'displayname', value: 'Mine' } })).status, 403);
      assert.equal((await t.p.services.directory.groups.find('crew'))!.display_name, 'The Crew', 'refusals changed nothing');
    });

    async function deleteScenario(remove: (user: string) => Promise<void>) {
      const id = `gone${Math.random().toString(36).slice(2, 8)}`;
      await createUser(t.p, id);
      const alone = await createRoom(t.p, id, { roomType: RoomType.GROUP, roomName: 'Alone' });
      const child = await createRoom(t.p, id, { roomType: RoomType.PUBLIC, roomName: 'Alone too' });
      const shared = await createRoom(t.p, id, { roomType: RoomType.GROUP, roomName: 'Shared' });
      await seedUser(t.p, shared.token, 'alice', ParticipantType.USER);
      const one = await createRoom(t.p, id, { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      await t.p.services.userStatus.markOnline(id);
      await remove(id);
      assert.equal(await roomRow(t.p, alone.token), undefined, 'the conversation where they were the last user is gone');
      assert.equal(await roomRow(t.p, child.token), undefined);
      assert.ok(await roomRow(t.p, shared.token), 'a conversation with other users stays');
      assert.deepEqual(
        (await attendeesOf(t.p, shared.token)).map((a) => a.actor_id),
        ['alice'],
      );
      assert.equal((await roomRow(t.p, one.token))!.type, RoomType.ONE_TO_ONE_FORMER, 'the one-to-one becomes a former one');
      const status = await t.p.services.db.kysely.selectFrom('user_status').selectAll().where('user_id', '=', id).execute();
      assert.deepEqual(status, [], 'the user status went with the account');
    }

    it('DELETE /cloud/users/{userid} deletes the conversations where the user was the last one', async () => {
      await deleteScenario(async (id) => {
        const r = await t.call('DELETE', `/cloud/users/${id}`, { as: admin });
        assert.equal(r.status, 200, r.text);
      });
    });

    it('parley user:delete does the same', async () => {
      await deleteScenario(async (id) => {
        const r = await runCli(t.p.env, ['user:delete', id]);
        assert.equal(r.code, 0, r.stderr);
      });
    });
  });
}
