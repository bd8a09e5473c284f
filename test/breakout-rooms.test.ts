/**
 * Breakout rooms (contract "Get breakout rooms" and state table; docs/reference/conversations.md#breakout-rooms): the management API under api/v1, the list under api/v4, the mode/status values, and
 * the membership rules shared with the participant endpoints.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, basic, dialects, passwordOf, type Caller } from './helpers/parley.js';
import { RoomAvatarsRepository } from '../src/db/repositories/room-avatars.js';
import { png } from './helpers/images.js';
import { attendeesOf, createRoom, joinGuest, NO_THROTTLE, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1/breakout-rooms';

for (const dialect of dialects()) {
  describe(`breakout rooms [${dialect}]`, () => {
    const fx = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'] });

    const br = (method: string, token: string, suffix = '', who: string | null = 'alice', body?: Record<string, unknown>) =>
      fx.call(method, `${V1}/${token}${suffix}`, { as: who ? as(who) : undefined, body });
    const children = async (token: string) => fx.p.services.repos.rooms.childrenOf(token);
    const memberIds = async (token: string) => (await attendeesOf(fx.p, token)).map((a) => `${a.actor_id}:${a.participant_type}`).sort();

    /** A group room of alice (owner) with bob (moderator) and carol, dave, erin. */
    async function parentRoom(name = 'Workshop'): Promise<{ token: string; ids: Record<string, number> }> {
      const room = await createRoom(fx.p, 'alice', { roomType: RoomType.GROUP, roomName: name });
      const ids: Record<string, number> = { alice: room.attendeeId };
      ids.bob = (await seedUser(fx.p, room.token, 'bob', ParticipantType.MODERATOR)).id;
      for (const u of ['carol', 'dave', 'erin']) ids[u] = (await seedUser(fx.p, room.token, u)).id;
      return { token: room.token, ids };
    }

    describe('configure (POST breakout-rooms/{token})', () => {
      it('children left over from an earlier configuration are deleted with their avatars', async () => {
        const { token } = await parentRoom('Leftovers');
        assert.equal((await br('POST', token, '', 'alice', { mode: 3, amount: 1 })).status, 200);
        const [old] = await children(token);
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(png(16, 16))], { type: 'image/png' }), 'a.png');
        const up = await fetch(`${fx.p.url}/ocs/v2.php/apps/spreed/api/v1/room/${old.token}/avatar?format=json`, {
          method: 'POST',
          headers: { 'OCS-APIRequest': 'true', Authorization: basic('alice', passwordOf('alice')) },
          body: form,
        });
        assert.equal(up.status, 200, await up.text());
        const avatars = new RoomAvatarsRepository(fx.p.services.db.kysely);
        assert.ok(await avatars.find(old.id), 'the child has a custom avatar');
        // A parent marked "not configured" while its children still exist (an interrupted removal).
        await fx.p.services.repos.rooms.update((await roomRow(fx.p, token))!.id, { breakout_room_mode: 0 });
        assert.equal((await br('POST', token, '', 'alice', { mode: 3, amount: 1 })).status, 200);
        const now = await children(token);
        assert.equal(now.length, 1);
        assert.notEqual(now[0].id, old.id, 'the leftover child was replaced');
        assert.equal(await avatars.find(old.id), undefined, 'its avatar went with it');
      });

      it('refuses bad input and wrong callers, changing nothing', async () => {
        const { token, ids } = await parentRoom();
        const cases: Array<[Record<string, unknown> | undefined, string | null, number, unknown]> = [
          [{ mode: 1, amount: 2 }, 'carol', 403, 'moderator'],
          [{ mode: 1, amount: 2 }, 'frank', 404, 'room'],
          [{ mode: 1, amount: 2 }, null, 401, undefined],
          [{ amount: 2 }, 'alice', 400, 'mode'],
          [{ mode: 'one', amount: 2 }, 'alice', 400, 'mode'],
          [{ mode: 0, amount: 2 }, 'alice', 400, 'mode'],
          [{ mode: 4, amount: 2 }, 'alice', 400, 'mode'],
          [{ mode: 1 }, 'alice', 400, 'amount'],
          [{ mode: 1, amount: 0 }, 'alice', 400, 'amount'],
          [{ mode: 1, amount: 21 }, 'alice', 400, 'amount'],
          [{ mode: 1, amount: 1.5 }, 'alice', 400, 'amount'],
          [{ mode: 2, amount: 2, attendeeMap: '{nope' }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: '{"abc":0}' }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: `{"${ids.carol}":2}` }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: `{"${ids.carol}":-1}` }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: `{"${ids.carol}":"1"}` }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: '[1]' }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: '7' }, 'alice', 400, 'attendeeMap'],
          [{ mode: 2, amount: 2, attendeeMap: { x: 1 } }, 'alice', 400, 'attendeeMap'],
        ];
        for (const [body, who, status, error] of cases) {
          const r = await br('POST', token, '', who, body);
          assert.equal(r.status, status, `${JSON.stringify(body)} as ${who}: ${r.text}`);
          if (error !== undefined) assert.equal(r.data?.error, error, `${JSON.stringify(body)}: ${r.text}`);
        }
        const bad = await br('POST', 'not a token', '', 'alice', { mode: 1, amount: 2 });
        assert.equal(bad.status, 404);
        const row = await roomRow(fx.p, token);
        assert.equal(row!.breakout_room_mode, 0);
        assert.equal((await children(token)).length, 0);
      });

      it('400 room for public, one-to-one and breakout rooms; no route while the capability is off', async () => {
        const pub = await createRoom(fx.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Open' });
        assert.equal((await br('POST', pub.token, '', 'alice', { mode: 1, amount: 2 })).data.error, 'room');
        const one = await createRoom(fx.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
        assert.equal((await br('POST', one.token, '', 'alice', { mode: 1, amount: 2 })).data.error, 'room');

        const { token } = await parentRoom('Disabled');
        await fx.p.services.appConfig.set('breakout_rooms', 'no');
        try {
          // Contract: an endpoint with a required capability exists only while it is advertised.
          const r = await br('POST', token, '', 'alice', { mode: 1, amount: 2 });
          assert.deepEqual([r.status, r.meta.statuscode, r.data], [404, 404, []]);
          const list = await fx.call('GET', `${V4}/room/${token}/breakout-rooms`, { as: as('alice') });
          assert.deepEqual([list.status, list.data], [404, []]);
          const caps = await fx.call('GET', '/cloud/capabilities', { as: as('alice') });
          assert.ok(!caps.data.capabilities.spreed.features.includes('breakout-rooms-v1'));
          assert.equal(caps.data.capabilities.spreed.config.call['breakout-rooms'], false);
        } finally {
          await fx.p.services.appConfig.set('breakout_rooms', 'yes');
        }
        assert.equal((await roomRow(fx.p, token))!.breakout_room_mode, 0);
        const caps = await fx.call('GET', '/cloud/capabilities', { as: as('alice') });
        assert.ok(caps.data.capabilities.spreed.features.includes('breakout-rooms-v1'));
        assert.equal(caps.data.capabilities.spreed.config.call['breakout-rooms'], true);
      });

      it("each room's chat records it as Talk does: conversation_created, user_added for all but the caller, then breakout_rooms_started / _stopped", async () => {
        const { token } = await parentRoom('Recorded');
        assert.equal((await br('POST', token, '', 'alice', { mode: 2, amount: 2, attendeeMap: '{}' })).status, 200);
        const { ids } = { ids: Object.fromEntries((await attendeesOf(fx.p, token)).map((a) => [a.actor_id, a.id])) };
        assert.equal((await br('POST', token, '/attendees', 'alice', { attendeeMap: JSON.stringify({ [ids.carol]: 0 }) })).status, 200);
        const [room1, room2] = (await children(token)).sort((x, y) => x.id - y.id);
        const chat = async (child: string) => {
          const r = await fx.call('GET', `/apps/spreed/api/v1/chat/${child}`, { as: as('alice'), query: { lookIntoFuture: '0', limit: '50' } });
          assert.equal(r.status, 200, r.text);
          return (r.data as any[]).reverse().map((m) => [m.systemMessage, m.actorId, m.messageParameters.user?.id ?? ''].join(':'));
        };
        // Created by alice with bob (a moderator of the parent); the map then moved carol in.
        assert.deepEqual(await chat(room1.token), ['conversation_created:alice:', 'user_added:alice:bob', 'user_added:alice:carol']);
        assert.deepEqual(await chat(room2.token), ['conversation_created:alice:', 'user_added:alice:bob']);
        // Moving her on: removed from the first room, added to the second; mapping her to where
        // she is records nothing.
        assert.equal((await br('POST', token, '/attendees', 'alice', { attendeeMap: JSON.stringify({ [ids.carol]: 1 }) })).status, 200);
        assert.equal((await br('POST', token, '/attendees', 'alice', { attendeeMap: JSON.stringify({ [ids.carol]: 1 }) })).status, 200);
        assert.equal((await chat(room1.token)).at(-1), 'user_removed:alice:carol');
        assert.deepEqual((await chat(room2.token)).slice(2), ['user_added:alice:carol']);
        assert.equal((await br('POST', token, '/rooms', 'bob')).status, 200);
        assert.equal((await chat(room2.token)).at(-1), 'breakout_rooms_started:bob:');
        // Starting again changes no lobby and records nothing more.
        assert.equal((await br('POST', token, '/rooms', 'bob')).status, 200);
        assert.equal((await chat(room2.token)).filter((m) => m.startsWith('breakout_rooms_started')).length, 1);
        assert.equal((await br('DELETE', token, '/rooms', 'alice')).status, 200);
        assert.deepEqual((await chat(room2.token)).slice(-2), ['breakout_rooms_started:bob:', 'breakout_rooms_stopped:alice:']);
      });

      it('automatic with users: every user placed in a room is recorded there as added', async () => {
        const { token } = await parentRoom('Placed');
        assert.equal((await br('POST', token, '', 'bob', { mode: 1, amount: 1 })).status, 200);
        const [room] = await children(token);
        const r = await fx.call('GET', `/apps/spreed/api/v1/chat/${room.token}`, { as: as('bob'), query: { lookIntoFuture: '0', limit: '50' } });
        const added = (r.data as any[])
          .filter((m) => m.systemMessage === 'user_added')
          .map((m) => m.messageParameters.user.id)
          .sort();
        // bob configured them: alice (the other moderator) and the three users, not bob himself.
        assert.deepEqual(added, ['alice', 'carol', 'dave', 'erin']);
        assert.equal((r.data as any[]).at(-1).systemMessage, 'conversation_created');
      });

      it('automatic: "Room 1".."Room N", parent type, lobby on, moderators everywhere, users spread evenly', async () => {
        const { token } = await parentRoom();
        const r = await br('POST', token, '', 'alice', { mode: 1, amount: 2 });
        assert.equal(r.status, 200, r.text);
        // The children alice is in, then the parent.
        assert.deepEqual(
          r.data.map((x: any) => x.name),
          ['Room 1', 'Room 2', 'Workshop'],
        );
        const parent = r.data[2];
        assert.equal(parent.breakoutRoomMode, 1);
        assert.equal(parent.breakoutRoomStatus, 0);
        const kids = await children(token);
        assert.equal(kids.length, 2);
        const sizes: number[] = [];
        for (const kid of kids) {
          assert.equal(kid.type, RoomType.GROUP);
          assert.equal(kid.object_type, 'room');
          assert.equal(kid.object_id, token);
          assert.equal(kid.lobby_state, 1);
          const members = await memberIds(kid.token);
          assert.ok(members.includes('alice:1') && members.includes('bob:2'), members.join());
          sizes.push(members.length - 2);
        }
        assert.deepEqual(sizes.sort(), [1, 2]);
        const placed = (await Promise.all(kids.map((k) => attendeesOf(fx.p, k.token)))).flat().map((a) => a.actor_id);
        for (const u of ['carol', 'dave', 'erin']) assert.equal(placed.filter((x) => x === u).length, 1, `${u} is in exactly one room`);

        const again = await br('POST', token, '', 'alice', { mode: 1, amount: 3 });
        assert.equal(again.status, 400);
        assert.equal(again.data.error, 'room');
        assert.equal((await children(token)).length, 2);
      });

      it('manual: the attendee map places users; unmapped users stay in the parent only', async () => {
        const { token, ids } = await parentRoom();
        const r = await br('POST', token, '', 'bob', { mode: 2, amount: 3, attendeeMap: JSON.stringify({ [ids.carol]: 2, [ids.dave]: 0 }) });
        assert.equal(r.status, 200, r.text);
        const kids = await children(token);
        assert.deepEqual(await Promise.all(kids.map((k) => memberIds(k.token))), [
          ['alice:1', 'bob:2', 'dave:3'],
          ['alice:1', 'bob:2'],
          ['alice:1', 'bob:2', 'carol:3'],
        ]);
        assert.equal((await roomRow(fx.p, token))!.breakout_room_mode, 2);
      });

      it('also answers under /ocs/v1.php', async () => {
        const { token } = await parentRoom();
        const r = await fx.call('POST', `${V1}/${token}`, { as: as('alice'), body: { mode: 3, amount: 1 }, version: 1 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.meta.statuscode, 100);
        assert.equal((await roomRow(fx.p, token))!.breakout_room_mode, 3);
      });
    });

    describe('list, start, assistance, stop, attendee map, remove', () => {
      let token: string;
      let ids: Record<string, number>;
      before(async () => {
        ({ token, ids } = await parentRoom('Lifecycle'));
        const r = await br('POST', token, '', 'alice', { mode: 2, amount: 2, attendeeMap: JSON.stringify({ [ids.carol]: 0, [ids.dave]: 1 }) });
        assert.equal(r.status, 200, r.text);
      });

      it('GET room/{token}/breakout-rooms: 400 status before the start for non-moderators; all rooms for moderators', async () => {
        const carol = await fx.call('GET', `${V4}/room/${token}/breakout-rooms`, { as: as('carol') });
        assert.equal(carol.status, 400);
        assert.equal(carol.data.error, 'status');
        const alice = await fx.call('GET', `${V4}/room/${token}/breakout-rooms`, { as: as('alice') });
        assert.equal(alice.status, 200);
        assert.deepEqual(
          alice.data.map((x: any) => [x.name, x.participantType, x.lobbyState]),
          [
            ['Room 1', 1, 1],
            ['Room 2', 1, 1],
          ],
        );
        assert.equal((await fx.call('GET', `${V4}/room/${token}/breakout-rooms`, { as: as('frank') })).status, 404);
        assert.equal((await fx.call('GET', `${V4}/room/${token}/breakout-rooms`)).status, 401);
        const plain = await createRoom(fx.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Plain' });
        const none = await fx.call('GET', `${V4}/room/${plain.token}/breakout-rooms`, { as: as('alice') });
        assert.equal(none.status, 400);
        assert.equal(none.data.error, 'mode');
      });

      it('start: 403 for non-moderators; lobbies off, status 1; users then see only their room', async () => {
        assert.equal((await br('POST', token, '/rooms', 'carol')).status, 403);
        const r = await br('POST', token, '/rooms', 'alice');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.at(-1).breakoutRoomStatus, 1);
        for (const kid of await children(token)) assert.equal(kid.lobby_state, 0);
        const carol = await fx.call('GET', `${V4}/room/${token}/breakout-rooms`, { as: as('carol') });
        assert.equal(carol.status, 200);
        assert.deepEqual(
          carol.data.map((x: any) => [x.name, x.participantType]),
          [['Room 1', ParticipantType.USER]],
        );
      });

      it('request assistance on a child (status 2) and withdraw it (status 0)', async () => {
        const [room1] = await children(token);
        const notChild = await br('POST', token, '/request-assistance', 'carol');
        assert.equal(notChild.status, 400);
        assert.equal(notChild.data.error, 'room');
        assert.equal((await br('POST', room1.token, '/request-assistance', 'dave')).status, 404, 'dave is not in Room 1');
        const r = await br('POST', room1.token, '/request-assistance', 'carol');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.breakoutRoomStatus, 2);
        assert.equal((await roomRow(fx.p, room1.token))!.breakout_room_status, 2);
        const w = await br('DELETE', room1.token, '/request-assistance', 'carol');
        assert.equal(w.data.breakoutRoomStatus, 0);
        assert.equal((await br('POST', room1.token, '/request-assistance', 'carol')).data.breakoutRoomStatus, 2);
      });

      it('stop: lobbies on, status 0, pending assistance cleared; assistance then refused', async () => {
        const r = await br('DELETE', token, '/rooms', 'bob');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.at(-1).breakoutRoomStatus, 0);
        for (const kid of await children(token)) {
          assert.equal(kid.lobby_state, 1);
          assert.equal(kid.breakout_room_status, 0);
        }
        const [room1] = await children(token);
        const refused = await br('POST', room1.token, '/request-assistance', 'carol');
        assert.equal(refused.status, 400);
        assert.equal(refused.data.error, 'room');
      });

      it('apply an attendee map: users move; moderators and bad maps are refused unchanged', async () => {
        const [room1, room2] = await children(token);
        const before = [await memberIds(room1.token), await memberIds(room2.token)];
        for (const [map, error] of [
          ['{oops', 'attendeeMap'],
          [JSON.stringify({ [ids.carol]: 2 }), 'attendeeMap'],
          [JSON.stringify({ [ids.bob]: 0 }), 'moderator'],
        ]) {
          const r = await br('POST', token, '/attendees', 'alice', { attendeeMap: map });
          assert.equal(r.status, 400, map);
          assert.equal(r.data.error, error, map);
        }
        assert.equal((await br('POST', token, '/attendees', 'alice', {})).data.error, 'attendeeMap');
        assert.equal((await br('POST', token, '/attendees', 'carol', { attendeeMap: '{}' })).status, 403);
        assert.deepEqual([await memberIds(room1.token), await memberIds(room2.token)], before);

        const r = await br('POST', token, '/attendees', 'alice', { attendeeMap: JSON.stringify({ [ids.carol]: 1, [ids.erin]: 0 }) });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(await memberIds(room1.token), ['alice:1', 'bob:2', 'erin:3']);
        assert.deepEqual(await memberIds(room2.token), ['alice:1', 'bob:2', 'carol:3', 'dave:3']);
      });

      it('switch is refused outside free mode', async () => {
        const [room1] = await children(token);
        const r = await br('POST', token, '/switch', 'carol', { target: room1.token });
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'mode');
      });

      it('remove: children deleted, mode and status back to 0', async () => {
        const kids = await children(token);
        assert.equal((await br('DELETE', token, '', 'carol')).status, 403);
        const r = await br('DELETE', token, '', 'alice');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.breakoutRoomMode, 0);
        assert.equal(r.data.breakoutRoomStatus, 0);
        assert.equal((await children(token)).length, 0);
        for (const k of kids) assert.equal(await roomRow(fx.p, k.token), undefined);
        const start = await br('POST', token, '/rooms', 'alice');
        assert.equal(start.status, 400);
        assert.equal(start.data.error, 'mode');
      });
    });

    describe('free selection mode', () => {
      it('users pick and switch rooms after the start; everyone sees all rooms', async () => {
        const { token } = await parentRoom('Free');
        assert.equal((await br('POST', token, '', 'alice', { mode: 3, amount: 2 })).status, 200);
        const [room1, room2] = await children(token);
        assert.deepEqual(await memberIds(room1.token), ['alice:1', 'bob:2'], 'free mode distributes nobody');
        const early = await br('POST', token, '/switch', 'carol', { target: room1.token });
        assert.equal(early.data.error, 'status');
        await br('POST', token, '/rooms', 'alice');

        const list = await fx.call('GET', `${V4}/room/${token}/breakout-rooms`, { as: as('carol') });
        assert.equal(list.status, 200);
        assert.deepEqual(
          list.data.map((x: any) => [x.displayName, x.participantType, x.attendeeId]),
          [
            ['Room 1', 4, 0],
            ['Room 2', 4, 0],
          ],
        );
        for (const [body, who, error] of [
          [{ target: 'nope' }, 'carol', 'target'],
          [{}, 'carol', 'target'],
          [{ target: token }, 'carol', 'target'],
          [{ target: room1.token }, 'bob', 'moderator'],
        ] as const) {
          const r = await br('POST', token, '/switch', who, body);
          assert.equal(r.status, 400, JSON.stringify(body));
          assert.equal(r.data.error, error);
        }
        assert.equal((await br('POST', token, '/switch', 'frank', { target: room1.token })).status, 404);

        const s1 = await br('POST', token, '/switch', 'carol', { target: room2.token });
        assert.equal(s1.status, 200, s1.text);
        assert.equal(s1.data.token, room2.token);
        assert.equal(s1.data.participantType, ParticipantType.USER);
        const s2 = await br('POST', token, '/switch', 'carol', { target: room1.token });
        assert.equal(s2.data.token, room1.token);
        assert.ok((await memberIds(room1.token)).includes('carol:3'));
        assert.ok(!(await memberIds(room2.token)).includes('carol:3'), 'switching leaves the other room');
      });
    });

    describe('GET room/{token}/breakout-rooms/participants', () => {
      it("200 with the children's participants for the parent moderator; 403 guest; 404 stranger and unknown token; 412 in the lobby", async () => {
        const { token, ids } = await parentRoom('Who is where');
        const r = await br('POST', token, '', 'alice', { mode: 2, amount: 2, attendeeMap: JSON.stringify({ [ids.carol]: 0, [ids.dave]: 1 }) });
        assert.equal(r.status, 200, r.text);
        const [room1, room2] = await children(token);
        // Guests join public conversations only: the parent is public while one joins.
        await setRoom(fx.p, token, { type: RoomType.PUBLIC });
        const guest = await joinGuest(fx.p, token);
        await setRoom(fx.p, token, { type: RoomType.GROUP });
        const path = `${V4}/room/${token}/breakout-rooms/participants`;

        const all = await fx.call('GET', path, { as: as('alice') });
        assert.equal(all.status, 200, all.text);
        const where = (rows: any[]) =>
          rows
            .map(
              (e) =>
                `${e.roomToken === token ? 'parent' : e.roomToken === room1.token ? 'Room 1' : e.roomToken === room2.token ? 'Room 2' : e.roomToken}:${e.actorType === 'guests' ? 'guest' : e.actorId}`,
            )
            .sort();
        assert.deepEqual(where(all.data), [
          'Room 1:alice',
          'Room 1:bob',
          'Room 1:carol',
          'Room 2:alice',
          'Room 2:bob',
          'Room 2:dave',
          'parent:alice',
          'parent:bob',
          'parent:carol',
          'parent:dave',
          'parent:erin',
          'parent:guest',
        ]);
        const parentOnly = await fx.call('GET', `${V4}/room/${token}/participants`, { as: as('alice') });
        assert.deepEqual(
          where(parentOnly.data),
          where(all.data).filter((e) => e.startsWith('parent:')),
          'the plain list has the parent only',
        );

        // With the lobby on: 412 for a normal user; 403 and 404 are answered before the lobby.
        await setRoom(fx.p, token, { lobby_state: 1 });
        const refused: Array<[string, Caller, number, string]> = [
          [token, as('carol'), 412, 'lobby'],
          [token, guest.caller, 403, 'participant'],
          [token, as('frank'), 404, 'room'],
          ['unknowntok', as('alice'), 404, 'room'],
        ];
        for (const [t, who, status, error] of refused) {
          const got = await fx.call('GET', `${V4}/room/${t}/breakout-rooms/participants`, { as: who });
          assert.deepEqual([got.status, got.data?.error], [status, error], `${t} ${JSON.stringify(who)}`);
        }
        assert.equal((await fx.call('GET', path, { as: as('alice') })).status, 200, 'moderators pass the lobby');
      });
    });

    describe('membership rules around breakout rooms', () => {
      it('promotion and demotion on the parent follow into the children; deleting the parent deletes them', async () => {
        const { token, ids } = await parentRoom('Roles');
        await br('POST', token, '', 'alice', { mode: 3, amount: 2 });
        const kids = await children(token);
        const promote = await fx.call('POST', `${V4}/room/${token}/moderators`, { as: as('alice'), body: { attendeeId: ids.carol } });
        assert.equal(promote.status, 200, promote.text);
        for (const k of kids) assert.ok((await memberIds(k.token)).includes('carol:2'));
        const demote = await fx.call('DELETE', `${V4}/room/${token}/moderators`, { as: as('alice'), body: { attendeeId: ids.carol } });
        assert.equal(demote.status, 200, demote.text);
        for (const k of kids) assert.ok(!(await memberIds(k.token)).some((m) => m.startsWith('carol:')));

        const del = await fx.call('DELETE', `${V4}/room/${token}`, { as: as('alice') });
        assert.equal(del.status, 200);
        for (const k of kids) assert.equal(await roomRow(fx.p, k.token), undefined);
      });

      it('adding a user to a child adds them to the parent and takes them out of the siblings', async () => {
        const { token } = await parentRoom('Adding');
        await br('POST', token, '', 'alice', { mode: 3, amount: 2 });
        const [room1, room2] = await children(token);
        const add1 = await fx.call('POST', `${V4}/room/${room1.token}/participants`, { as: as('alice'), body: { newParticipant: 'frank' } });
        assert.equal(add1.status, 200, add1.text);
        assert.ok((await memberIds(token)).includes('frank:3'), 'frank joined the parent');
        await fx.call('POST', `${V4}/room/${room2.token}/participants`, { as: as('alice'), body: { newParticipant: 'frank' } });
        assert.ok((await memberIds(room2.token)).includes('frank:3'));
        assert.ok(!(await memberIds(room1.token)).includes('frank:3'));
      });

      it('attendees removed from the parent leave every child, a group with the members it brought', async () => {
        const { token, ids } = await parentRoom('Leaving');
        await fx.p.services.directory.createGroup('visitors');
        await fx.p.services.directory.addToGroup('visitors', 'frank');
        const addGroup = await fx.call('POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'visitors', source: 'groups' } });
        assert.equal(addGroup.status, 200, addGroup.text);
        await br('POST', token, '', 'alice', { mode: 3, amount: 2 });
        const [room1, room2] = await children(token);
        for (const [room, user] of [
          [room1, 'frank'],
          [room2, 'dave'],
        ] as const) {
          const r = await fx.call('POST', `${V4}/room/${room.token}/participants`, { as: as('alice'), body: { newParticipant: user } });
          assert.equal(r.status, 200, r.text);
        }
        const visitors = (await attendeesOf(fx.p, token)).find((a) => a.actor_type === 'groups' && a.actor_id === 'visitors')!;
        for (const attendeeId of [visitors.id, ids.dave]) {
          const r = await fx.call('DELETE', `${V4}/room/${token}/attendees`, { as: as('alice'), body: { attendeeId } });
          assert.equal(r.status, 200, r.text);
        }
        assert.ok(!(await memberIds(token)).some((m) => m.startsWith('frank:') || m.startsWith('dave:')));
        assert.ok(!(await memberIds(room1.token)).some((m) => m.startsWith('frank:')), 'frank left with the group');
        assert.ok(!(await memberIds(room2.token)).some((m) => m.startsWith('dave:')));
      });

      it('a child created through POST /room takes the parent type and starts behind the lobby', async () => {
        const { token } = await parentRoom('Manual child');
        await br('POST', token, '', 'alice', { mode: 3, amount: 1 });
        const child = await createRoom(fx.p, 'bob', { roomType: RoomType.PUBLIC, roomName: 'Extra', objectType: 'room', objectId: token });
        assert.equal(child.type, RoomType.GROUP, 'roomType 3 with objectType room is a child too, of the parent type (contract state table)');
        assert.equal(child.objectId, token);
        const real = await createRoom(fx.p, 'bob', { roomType: RoomType.GROUP, roomName: 'Extra', objectType: 'room', objectId: token });
        assert.equal(real.lobbyState, 1);
        assert.equal(real.objectId, token);
        assert.ok((await memberIds(real.token)).includes('alice:1'));
      });
    });
  });
}
