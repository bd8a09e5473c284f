/**
 * Accounts as Nextcloud manages them, seen from conversations: renaming a group
 * (`PUT /cloud/groups/{groupid}`, key=displayname) renames its attendees; deleting a user
 * through the API or the CLI deletes the conversations where they were the last user (as
 * `talk:user:remove` does) and the rows Nextcloud deletes with an account; the conversations
 * it leaves record `user_removed` naming a deleted user (docs/reference/chat.md#rich-objects, docs/reference/chat.md#system-messages) by the
 * admin or the command line, one-to-ones become former ones without a message, and the deleted
 * user's messages are authored by `deleted_users`.
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
        ['/cloud/groups/crew', { key: 'members', value: 'x' }, 401, 'key'],
        ['/cloud/groups/nogroup', { key: 'members', value: 'x' }, 401, 'key'],
        ['/cloud/groups/crew', { key: 'displayname', value: '' }, 400, 'displayname'],
      ];
      for (const [path, form, status, error] of refusals) {
        const res = await t.call('PUT', path, { as: admin, form });
        assert.deepEqual([res.status, res.data.error], [status, error], JSON.stringify(form));
      }
      // Nextcloud's answer to another key: OCS 997 with HTTP 401 on v1 and v2 alike.
      for (const version of [1, 2] as const) {
        const res = await t.call('PUT', '/cloud/groups/crew', { as: admin, version, form: { key: 'members', value: 'x' } });
        assert.deepEqual([res.status, res.meta.statuscode, res.meta.message], [401, 997, ''], `v${version}`);
      }
      assert.equal((await t.call('PUT', '/cloud/groups/crew', { as: as('bob'), form: { key: 'displayname', value: 'Mine' } })).status, 403);
      assert.equal((await t.p.services.directory.groups.find('crew'))!.display_name, 'The Crew', 'refusals changed nothing');
    });

    const V1 = '/apps/spreed/api/v1';
    const DELETED = { type: 'highlight', id: 'deleted_users', name: 'Deleted user' };

    /** `actor`: who the chat names for the removal, with the text alice reads. */
    async function deleteScenario(remove: (user: string) => Promise<void>, actor: { actorType: string; actorId: string; text: string; rich: object }) {
      const id = `gone${Math.random().toString(36).slice(2, 8)}`;
      await createUser(t.p, id, { displayName: `Leaving ${id}` });
      const alone = await createRoom(t.p, id, { roomType: RoomType.GROUP, roomName: 'Alone' });
      const child = await createRoom(t.p, id, { roomType: RoomType.PUBLIC, roomName: 'Alone too' });
      const shared = await createRoom(t.p, id, { roomType: RoomType.GROUP, roomName: 'Shared' });
      await seedUser(t.p, shared.token, 'alice', ParticipantType.USER);
      const one = await createRoom(t.p, id, { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      await t.p.services.userStatus.markOnline(id);
      const said = await t.say(shared.token, id, 'before I go');
      const saidOne = await t.say(one.token, id, 'bye bob');
      const oneBefore = (await t.call('GET', `${V4}/room/${one.token}`, { as: as('bob') })).data;
      await remove(id);
      assert.equal(await roomRow(t.p, alone.token), undefined, 'the conversation where they were the last user is gone');
      assert.equal(await roomRow(t.p, child.token), undefined);
      assert.ok(await roomRow(t.p, shared.token), 'a conversation with other users stays');
      assert.deepEqual(
        (await attendeesOf(t.p, shared.token)).map((a) => a.actor_id),
        ['alice'],
      );
      assert.equal((await roomRow(t.p, one.token))!.type, RoomType.ONE_TO_ONE_FORMER, 'the one-to-one becomes a former one');

      // The shared conversation records the removal, and its lastMessage and lastActivity move.
      const messages = await t.history(shared.token, 'alice');
      const removed = messages[0];
      assert.equal(removed.systemMessage, 'user_removed');
      assert.deepEqual(
        [removed.actorType, removed.actorId, removed.actorDisplayName],
        [actor.actorType, actor.actorId, actor.actorType === 'users' ? 'admin' : ''],
      );
      assert.equal(removed.message, actor.text);
      assert.deepEqual(removed.messageParameters, { actor: actor.rich, user: DELETED });
      const record = (await t.call('GET', `${V4}/room/${shared.token}`, { as: as('alice') })).data;
      assert.equal(record.lastMessage.id, removed.id);
      assert.equal(record.lastActivity, removed.timestamp);
      // Their messages stay, authored by a deleted user (actorDisplayName '', not replyable).
      const old = messages.find((m) => m.id === said);
      assert.deepEqual(
        [old.actorType, old.actorId, old.actorDisplayName, old.message, old.isReplyable],
        ['deleted_users', 'deleted_users', '', 'before I go', false],
      );
      const created = messages.find((m) => m.systemMessage === 'conversation_created');
      assert.deepEqual([created.actorType, created.actorId], ['deleted_users', 'deleted_users']);
      assert.deepEqual(created.messageParameters.actor, DELETED, 'a system message of theirs names a deleted user');
      assert.equal(created.message, '{actor} created the conversation');

      // The former one-to-one records nothing (docs/reference/chat.md#system-messages: no add/remove messages in one-to-ones).
      const oneMessages = await t.history(one.token, 'bob');
      assert.deepEqual(
        oneMessages.map((m) => m.systemMessage).filter((m) => m === 'user_removed'),
        [],
      );
      assert.equal(oneMessages[0].id, saidOne);
      assert.deepEqual([oneMessages[0].actorType, oneMessages[0].actorId], ['deleted_users', 'deleted_users']);
      const oneAfter = (await t.call('GET', `${V4}/room/${one.token}`, { as: as('bob') })).data;
      assert.equal(oneAfter.type, RoomType.ONE_TO_ONE_FORMER);
      // Named after the user who went, by the name they had, as Talk renames it (no rename message).
      assert.deepEqual([oneAfter.name, oneAfter.displayName], [`Leaving ${id}`, `Leaving ${id}`]);
      assert.ok(!oneMessages.some((m) => m.systemMessage === 'conversation_renamed'));
      assert.equal(oneAfter.lastMessage.id, oneBefore.lastMessage.id);
      assert.equal(oneAfter.lastMessage.actorType, 'deleted_users');
      const status = await t.p.services.db.kysely.selectFrom('user_status').selectAll().where('user_id', '=', id).execute();
      assert.deepEqual(status, [], 'the user status went with the account');
    }

    it('DELETE /cloud/users/{userid} deletes the conversations where the user was the last one', async () => {
      await deleteScenario(
        async (id) => {
          const r = await t.call('DELETE', `/cloud/users/${id}`, { as: admin });
          assert.equal(r.status, 200, r.text);
        },
        { actorType: 'users', actorId: 'admin', text: '{actor} removed {user}', rich: { type: 'user', id: 'admin', name: 'admin', 'mention-id': 'admin' } },
      );
    });

    it('parley user:delete does the same', async () => {
      await deleteScenario(
        async (id) => {
          const r = await runCli(t.p.env, ['user:delete', id]);
          assert.equal(r.code, 0, r.stderr);
        },
        { actorType: 'guests', actorId: 'cli', text: 'An administrator removed {user}', rich: CLI_RICH },
      );
    });

    it('a one-to-one the deleted user had already left becomes a former one too; a new account with the id gets a new one', async () => {
      const id = `quit${Math.random().toString(36).slice(2, 8)}`;
      await createUser(t.p, id, { displayName: 'Quitter' });
      const one = await createRoom(t.p, id, { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const other = await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      assert.equal((await t.call('DELETE', `${V4}/room/${one.token}/participants/self`, { as: as(id) })).status, 200);
      const before = (await t.call('GET', `${V4}/room/${one.token}`, { as: as('bob') })).data;
      assert.deepEqual([before.type, before.readOnly], [RoomType.ONE_TO_ONE, 0], 'still a one-to-one for bob after the other left');
      assert.equal((await t.call('DELETE', `/cloud/users/${id}`, { as: admin })).status, 200);
      const after = (await t.call('GET', `${V4}/room/${one.token}`, { as: as('bob') })).data;
      assert.deepEqual([after.type, after.readOnly, after.name, after.displayName], [RoomType.ONE_TO_ONE_FORMER, 1, 'Quitter', 'Quitter']);
      assert.equal((await roomRow(t.p, other.token))!.type, RoomType.ONE_TO_ONE, "another pair's one-to-one is untouched");
      await createUser(t.p, id, { displayName: 'Newcomer' });
      const again = await t.call('POST', `${V4}/room`, { as: as(id), body: { roomType: RoomType.ONE_TO_ONE, invite: 'bob' } });
      assert.equal(again.status, 201, 'a new conversation, not the old one reopened');
      assert.notEqual(again.data.token, one.token);
    });

    it('two deleted users who gave the same reaction: both deletions succeed, the message keeps its count', async () => {
      const [u1, u2] = [`r1${Math.random().toString(36).slice(2, 8)}`, `r2${Math.random().toString(36).slice(2, 8)}`];
      await createUser(t.p, u1);
      await createUser(t.p, u2);
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Reactions' });
      for (const u of [u1, u2]) await seedUser(t.p, room.token, u, ParticipantType.USER);
      const id = await t.say(room.token, 'alice', 'react to me');
      for (const u of [u1, u2]) {
        const r = await t.call('POST', `${V1}/reaction/${room.token}/${id}`, { as: as(u), body: { reaction: '👍' } });
        assert.equal(r.status, 201, r.text);
      }
      for (const u of [u1, u2]) assert.equal((await t.call('DELETE', `/cloud/users/${u}`, { as: admin })).status, 200);
      const message = (await t.history(room.token, 'alice')).find((m) => m.id === id);
      assert.deepEqual(message.reactions, { '👍': 2 });
      const who = await t.call('GET', `${V1}/reaction/${room.token}/${id}`, { as: as('alice') });
      assert.equal(who.status, 200, who.text);
      // One reaction row per actor, message and emoji: the second deleted user's row went, the count stays.
      assert.equal(who.data['👍'].length, 1);
      assert.ok(who.data['👍'].every((r: any) => r.actorType === 'deleted_users' && r.actorId === 'deleted_users'));
    });

    it('parley talk:user:remove records user_removed by the command line; the one-to-one becomes a former one', async () => {
      const id = `left${Math.random().toString(36).slice(2, 8)}`;
      await createUser(t.p, id, { displayName: 'Leaving' });
      const shared = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Team' });
      await seedUser(t.p, shared.token, id, ParticipantType.USER);
      const one = await createRoom(t.p, id, { roomType: RoomType.ONE_TO_ONE, invite: 'carol' });
      const r = await runCli(t.p.env, ['talk:user:remove', '--user', id]);
      assert.equal(r.code, 0, r.stderr);
      const [removed] = await t.history(shared.token, 'alice');
      assert.deepEqual(
        [removed.systemMessage, removed.actorType, removed.actorId, removed.message],
        ['user_removed', 'guests', 'cli', 'An administrator removed {user}'],
      );
      assert.deepEqual(removed.messageParameters.actor, CLI_RICH);
      assert.deepEqual([removed.messageParameters.user.type, removed.messageParameters.user.id], ['user', id], 'a user who still exists is named as a user');
      assert.equal((await t.call('GET', `${V4}/room/${shared.token}`, { as: as('alice') })).data.lastMessage.id, removed.id);
      assert.equal((await roomRow(t.p, one.token))!.type, RoomType.ONE_TO_ONE_FORMER);
      assert.deepEqual(
        (await t.history(one.token, 'carol')).filter((m) => m.systemMessage === 'user_removed'),
        [],
      );
    });
  });
}

const CLI_RICH = { type: 'guest', id: 'guest/cli', name: 'Administration', 'mention-id': 'guest/cli' };
