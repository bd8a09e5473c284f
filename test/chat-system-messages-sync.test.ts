/**
 * System messages for members who come and go without POST participants (docs/reference/chat.md#system-messages
 * user_added, user_removed, group_*, circle_*, phone_*): invited at creation (`POST /room` with
 * `invite`), joining or leaving through group and team membership (actor: the logged-in user
 * who changed it, else guests/cli), leaving together with their group or team, and SIP phones.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { ActorType, NO_THROTTLE, ParticipantType, RoomType, useParley, V4 } from './helpers/fixtures.js';
import { attendeesOf } from './helpers/rooms.js';
import { configureSip } from './helpers/sip-bridge.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat system messages: invites, group and team membership, phones [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['owner', 'ann', 'ben', 'cat'], env: NO_THROTTLE });

    /** Every message as `who` reads it, oldest first, as [systemMessage, actor, subject id]. */
    async function history(token: string, who = 'owner'): Promise<Array<[string, string, string]>> {
      return (await t.history(token, who)).reverse().map((m) => {
        const p = m.messageParameters;
        const subject = p.user ?? p.group ?? p.circle ?? p.phone;
        return [m.systemMessage, `${m.actorType}/${m.actorId}`, subject?.id ?? ''];
      });
    }
    const lastMessageId = async (token: string, who = 'owner') => (await t.call('GET', `${V4}/room/${token}`, { as: as(who) })).data.lastMessage.id;
    const newestId = async (token: string) =>
      (await t.call('GET', `${V1}/chat/${token}`, { as: as('owner'), query: { lookIntoFuture: 0, limit: 1 } })).data[0].id;
    const userIds = async (token: string) =>
      (await attendeesOf(t.p, token))
        .filter((a) => a.actor_type === ActorType.USERS)
        .map((a) => a.actor_id)
        .sort();

    it('POST /room with a group invite: conversation_created, group_added, then user_added per member, by the creator', async () => {
      await t.services.directory.createGroup('inv-crew');
      await t.services.directory.addToGroup('inv-crew', 'ann');
      await t.services.directory.addToGroup('inv-crew', 'ben');
      await t.services.directory.addToGroup('inv-crew', 'owner');
      const r = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.GROUP, invite: 'inv-crew' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(await history(r.data.token), [
        ['conversation_created', 'users/owner', ''],
        ['group_added', 'users/owner', 'inv-crew'],
        ['user_added', 'users/owner', 'ann'],
        ['user_added', 'users/owner', 'ben'],
      ]);
      assert.equal(r.data.lastMessage.systemMessage, 'user_added');
      assert.equal(await lastMessageId(r.data.token, 'ann'), await newestId(r.data.token));
      // Without invite only the creation is recorded.
      const plain = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.GROUP, roomName: 'Plain' } });
      assert.deepEqual(await history(plain.data.token), [['conversation_created', 'users/owner', '']]);
    });

    it('POST /room with source=circles: circle_added, then user_added per member', async () => {
      await t.services.teams.create('inv-team', 'Invited team');
      await t.services.teams.addMember('inv-team', 'owner');
      await t.services.teams.addMember('inv-team', 'cat');
      const r = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.GROUP, invite: 'inv-team', source: 'circles' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(await history(r.data.token), [
        ['conversation_created', 'users/owner', ''],
        ['circle_added', 'users/owner', 'inv-team'],
        ['user_added', 'users/owner', 'cat'],
      ]);
    });

    it('joining and leaving a group over the provisioning API: user_added / user_removed by the admin', async () => {
      await t.call('POST', '/cloud/groups', { as: admin, body: { groupid: 'sync-g' } });
      const room = await t.newRoom('owner');
      assert.equal(
        (await t.call('POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'sync-g', source: 'groups' } })).status,
        200,
      );
      const before = (await history(room.token)).length;

      let r = await t.call('POST', '/cloud/users/ann/groups', { as: admin, body: { groupid: 'sync-g' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((await history(room.token)).slice(before), [['user_added', `users/${admin.user}`, 'ann']]);
      assert.deepEqual(await userIds(room.token), ['ann', 'owner']);
      assert.equal(await lastMessageId(room.token, 'ann'), await newestId(room.token));

      r = await t.call('DELETE', '/cloud/users/ann/groups', { as: admin, query: { groupid: 'sync-g' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((await history(room.token)).slice(before + 1), [['user_removed', `users/${admin.user}`, 'ann']]);
      assert.deepEqual(await userIds(room.token), ['owner']);
      // Adding a member who is already in the conversation records nothing.
      await t.services.directory.addToGroup('sync-g', 'owner');
      assert.equal((await history(room.token)).length, before + 2);
    });

    it('the command line and teams: guests/cli; a member another group keeps is not removed', async () => {
      await t.services.directory.createGroup('cli-g');
      await t.services.directory.createGroup('cli-keep');
      await t.services.teams.create('cli-team', 'CLI team');
      await t.services.teams.addMember('cli-team', 'owner');
      const room = await t.newRoom('owner');
      for (const [id, source] of [
        ['cli-g', 'groups'],
        ['cli-keep', 'groups'],
        ['cli-team', 'circles'],
      ]) {
        assert.equal((await t.call('POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: id, source } })).status, 200);
      }
      const before = (await history(room.token)).length;
      await t.services.directory.addToGroup('cli-g', 'ben');
      await t.services.teams.addMember('cli-team', 'cat');
      await t.services.directory.addToGroup('cli-keep', 'ben');
      await t.services.directory.removeFromGroup('cli-g', 'ben');
      await t.services.teams.removeMember('cli-team', 'cat');
      assert.deepEqual((await history(room.token)).slice(before), [
        ['user_added', 'guests/cli', 'ben'],
        ['user_added', 'guests/cli', 'cat'],
        ['user_removed', 'guests/cli', 'cat'],
      ]);
      assert.deepEqual(await userIds(room.token), ['ben', 'owner']);
    });

    it('a self-joined user who joins the group becomes a member: user_added', async () => {
      await t.services.directory.createGroup('sj-g');
      const room = await t.newRoom('owner', { type: RoomType.PUBLIC });
      assert.equal(
        (await t.call('POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'sj-g', source: 'groups' } })).status,
        200,
      );
      assert.equal((await t.call('POST', `${V4}/room/${room.token}/participants/active`, { as: as('cat') })).status, 200);
      assert.equal((await attendeesOf(t.p, room.token)).find((a) => a.actor_id === 'cat')!.participant_type, ParticipantType.USER_SELF_JOINED);
      const before = (await history(room.token)).length;
      await t.services.directory.addToGroup('sj-g', 'cat');
      assert.deepEqual((await history(room.token)).slice(before), [['user_added', 'guests/cli', 'cat']]);
      assert.equal((await attendeesOf(t.p, room.token)).find((a) => a.actor_id === 'cat')!.participant_type, ParticipantType.USER);
    });

    it('a deleted group leaves with its members: group_removed, then user_removed, by the admin', async () => {
      await t.call('POST', '/cloud/groups', { as: admin, body: { groupid: 'del-g' } });
      await t.services.directory.addToGroup('del-g', 'ann');
      const room = await t.newRoom('owner');
      assert.equal(
        (await t.call('POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'del-g', source: 'groups' } })).status,
        200,
      );
      const before = (await history(room.token)).length;
      assert.equal((await t.call('DELETE', '/cloud/groups/del-g', { as: admin })).status, 200);
      assert.deepEqual((await history(room.token)).slice(before), [
        ['group_removed', `users/${admin.user}`, 'del-g'],
        ['user_removed', `users/${admin.user}`, 'ann'],
      ]);
      assert.deepEqual(await userIds(room.token), ['owner']);
    });

    it('removing a group or team from the conversation takes its members along: user_removed for each', async () => {
      await t.services.directory.createGroup('rm-g');
      await t.services.directory.addToGroup('rm-g', 'ann');
      await t.services.directory.addToGroup('rm-g', 'ben');
      const room = await t.newRoom('owner', { members: ['ben'] });
      await t.call('POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'rm-g', source: 'groups' } });
      const ben = (await attendeesOf(t.p, room.token)).find((a) => a.actor_id === 'ben')!;
      await t.call('POST', `${V4}/room/${room.token}/moderators`, { as: as('owner'), body: { attendeeId: ben.id } });
      const group = (await attendeesOf(t.p, room.token)).find((a) => a.actor_type === ActorType.GROUPS)!;
      const before = (await history(room.token)).length;
      const r = await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: group.id } });
      assert.equal(r.status, 200, r.text);
      // ben is a moderator now: moderators stay (Talk's removeGroupMembers removes plain members only).
      assert.deepEqual((await history(room.token)).slice(before), [
        ['group_removed', 'users/owner', 'rm-g'],
        ['user_removed', 'users/owner', 'ann'],
      ]);
      assert.deepEqual(await userIds(room.token), ['ben', 'owner']);
      assert.equal(await lastMessageId(room.token), await newestId(room.token));
    });

    it('SIP phones: phone_added and phone_removed by the moderator, naming the phone', async () => {
      await createUser(t.p, 'dialer', { groups: ['sip'] });
      await configureSip(t.p, 'sync-secret');
      await t.p.services.appConfig.set('sip_dialout', 'yes');
      const room = await t.newRoom('dialer');
      const r = await t.call('POST', `${V4}/room/${room.token}/participants`, {
        as: as('dialer'),
        body: { newParticipant: '+4930123456789', source: 'phones' },
      });
      assert.equal(r.status, 200, r.text);
      const phone = (await attendeesOf(t.p, room.token)).find((a) => a.actor_type === ActorType.PHONES)!;
      const added = (await t.call('GET', `${V1}/chat/${room.token}`, { as: as('dialer'), query: { lookIntoFuture: 0, limit: 1 } })).data[0];
      assert.equal(added.systemMessage, 'phone_added');
      assert.equal(added.actorId, 'dialer');
      assert.deepEqual(added.messageParameters.phone, { type: 'highlight', id: phone.actor_id, name: phone.display_name });
      assert.equal(added.message, 'You added {phone}');
      assert.equal(await lastMessageId(room.token, 'dialer'), added.id);
      const del = await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('dialer'), body: { attendeeId: phone.id } });
      assert.equal(del.status, 200, del.text);
      const [removed] = (await t.call('GET', `${V1}/chat/${room.token}`, { as: as('dialer'), query: { lookIntoFuture: 0, limit: 1 } })).data;
      assert.equal(removed.systemMessage, 'phone_removed');
      assert.equal(removed.messageParameters.phone.id, phone.actor_id);
    });
  });
}
