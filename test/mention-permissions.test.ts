/**
 * PUT /room/{token}/mention-permissions (capability `mention-permissions`), as Talk's
 * RoomController::setMentionPermissions: logged-in moderators set 0 (everyone may mention @all)
 * or 1 (moderators only); 400 `type` / `breakout-room` / `value`, 403 for others, 404 for an
 * unknown conversation; JSON and XML. The setting governs who reaches everyone with @all, in a
 * message and in the mention autocomplete.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects, type Caller } from './helpers/parley.js';
import { NO_THROTTLE, roomRow, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const CHAT = '/apps/spreed/api/v1/chat';

for (const dialect of dialects()) {
  describe(`mention permissions [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave'] });
    const put = (token: string, who: Caller, value: unknown, format: 'json' | 'xml' = 'json') =>
      t.call('PUT', `${V4}/room/${token}/mention-permissions`, { as: who, body: { mentionPermissions: value }, format });

    it('a moderator sets 1 then 0: 200 with the updated record (JSON and XML); stored', async () => {
      const room = await t.newRoom('alice', { members: { bob: ParticipantType.MODERATOR, carol: ParticipantType.USER } });
      const r = await put(room.token, as('bob'), 1);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.mentionPermissions, 1);
      assert.equal(r.data.token, room.token);
      assert.equal((await roomRow(t.p, room.token))!.mention_permissions, 1);
      const xml = await put(room.token, as('alice'), 0, 'xml');
      assert.equal(xml.status, 200, xml.text);
      assert.match(xml.text, /<mentionPermissions>0<\/mentionPermissions>/);
      assert.equal((await roomRow(t.p, room.token))!.mention_permissions, 0);
      // Form bodies as the web client may send them.
      const form = await t.call('PUT', `${V4}/room/${room.token}/mention-permissions`, { as: as('alice'), form: { mentionPermissions: '1' } });
      assert.equal(form.status, 200, form.text);
      assert.equal(form.data.mentionPermissions, 1);
    });

    it('statuses: 403 for a member, 401 for a guest moderator (no login), 404 for an outsider and an unknown token, 400 value/type/breakout-room', async () => {
      const room = await t.newRoom('alice', { type: RoomType.PUBLIC, members: { carol: ParticipantType.USER } });
      const outcome = async (r: Promise<{ status: number; data: any }>) => {
        const x = await r;
        return [x.status, x.data?.error];
      };
      assert.deepEqual(await outcome(put(room.token, as('carol'), 1)), [403, 'moderator']);
      const guestModerator = await t.newGuest(room, ParticipantType.GUEST_MODERATOR);
      // Talk's endpoint is not a public page: without a login, 401 before any check (docs/reference/conversations.md#endpoint-rules).
      assert.deepEqual((await put(room.token, guestModerator.caller, 1)).status, 401);
      assert.equal((await put(room.token, as('dave'), 1)).status, 404);
      assert.equal((await put('nosuchroom1', as('alice'), 1)).status, 404);
      const xml = await put(room.token, as('carol'), 1, 'xml');
      assert.equal(xml.status, 403);
      assert.match(xml.text, /<statuscode>403<\/statuscode>/);
      for (const bad of [2, -1, 'x', 1.5]) {
        assert.deepEqual(await outcome(put(room.token, as('alice'), bad)), [400, 'value'], JSON.stringify(bad));
      }
      const badXml = await put(room.token, as('alice'), 2, 'xml');
      assert.equal(badXml.status, 400);
      assert.match(badXml.text, /<error>value<\/error>/);
      const missing = await t.call('PUT', `${V4}/room/${room.token}/mention-permissions`, { as: as('alice'), body: {} });
      assert.equal(missing.status, 400);
      assert.equal((await roomRow(t.p, room.token))!.mention_permissions, 0, 'nothing changed');

      const one = await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: 'bob' });
      assert.deepEqual(await outcome(put(one.token, as('alice'), 1)), [400, 'type']);
      assert.equal((await put(one.token, as('alice'), 0)).status, 200, 'an unchanged value is a no-op, as in Talk');

      const child = await t.newRoom('alice', { name: 'Breakout' });
      await setRoom(t.p, child.token, { object_type: 'room', object_id: room.token });
      assert.deepEqual(await outcome(put(child.token, as('alice'), 1)), [400, 'breakout-room']);
    });

    it('with 1 only moderators reach everyone with @all, and only they are offered "all"; with 0 everyone is', async () => {
      const room = await t.newRoom('alice', { name: 'Team', members: { carol: ParticipantType.USER, dave: ParticipantType.USER } });
      const callMentions = async (who: string) => {
        const r = await t.call('POST', `${CHAT}/${room.token}`, { as: as(who), body: { message: '@all hello' } });
        assert.equal(r.status, 201, r.text);
        return Object.values(r.data.messageParameters ?? {}).filter((p: any) => p.type === 'call').length;
      };
      const offered = async (who: string) => {
        const r = await t.call('GET', `${CHAT}/${room.token}/mentions`, { as: as(who), query: { search: 'all' } });
        assert.equal(r.status, 200, r.text);
        return r.data.some((e: any) => e.id === 'all');
      };
      assert.equal(await callMentions('carol'), 1, 'everyone may at first');
      assert.equal(await offered('carol'), true);
      assert.equal((await put(room.token, as('alice'), 1)).status, 200);
      assert.equal(await callMentions('carol'), 0, 'a member no longer mentions everyone');
      assert.equal(await offered('carol'), false);
      assert.equal(await callMentions('alice'), 1, 'a moderator still does');
      assert.equal(await offered('alice'), true);
      assert.equal((await put(room.token, as('alice'), 0)).status, 200);
      assert.equal(await callMentions('dave'), 1);
    });
  });
}
