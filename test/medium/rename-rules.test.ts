/**
 * Renaming a conversation (PUT /room/{token}, RoomsService.rename) as a table of cases over the
 * services and a real database: who may rename what, which names are refused and why, and what
 * is stored. The route's HTTP statuses are proven in conversations-rename-delete.test.ts.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ActorType, ParticipantType, RoomType } from '../../src/domain/constants.js';
import { dialects } from '../helpers/parley.js';
import { outcome, useServices } from '../helpers/services.js';

type Expect = string | [number, string];

for (const dialect of dialects()) {
  describe(`rename rules (services) [${dialect}]`, () => {
    const f = useServices(dialect, ['alice', 'bob', 'carol']);
    const tokens: Record<string, string> = {};

    before(async () => {
      const s = f.s();
      const base = { invite: '', source: '', objectType: '', objectId: '' };
      const group = await s.roomCreation.create(await f.ctx('alice'), { ...base, roomType: RoomType.GROUP, roomName: 'Team' });
      tokens.group = group.caller.room.token;
      await s.rooms.addAttendees(group.caller.room.id, [
        { actorType: ActorType.USERS, actorId: 'bob', participantType: ParticipantType.USER },
        { actorType: ActorType.USERS, actorId: 'carol', participantType: ParticipantType.MODERATOR },
      ]);
      const one = await s.roomCreation.create(await f.ctx('alice'), { ...base, roomType: RoomType.ONE_TO_ONE, invite: 'bob', roomName: '' });
      tokens.oneToOne = one.caller.room.token;
    });

    // [caller, conversation, new name, expected: the stored name, or [status, data.error]]
    const cases: Array<[string, string, string, Expect]> = [
      ['alice', 'group', 'Renamed', 'Renamed'],
      ['alice', 'group', '  Padded  ', 'Padded'],
      ['carol', 'group', 'By a moderator', 'By a moderator'],
      ['bob', 'group', 'By a member', [403, 'moderator']],
      ['alice', 'group', '', [400, 'value']],
      ['alice', 'group', '   ', [400, 'value']],
      ['alice', 'group', 'x'.repeat(256), [400, 'value']],
      ['alice', 'group', 'é'.repeat(255), 'é'.repeat(255)],
      ['alice', 'oneToOne', 'Nope', [400, 'type']],
      ['bob', 'oneToOne', 'Nope', [400, 'type']],
      ['carol', 'oneToOne', 'Nope', [404, 'room']],
      ['alice', 'missing', 'Nope', [404, 'room']],
    ];

    it('answers each case as the table says, and a refusal stores nothing', async () => {
      const s = f.s();
      for (const [caller, which, name, expected] of cases) {
        const token = tokens[which] ?? 'abcdefgh';
        const before = token === 'abcdefgh' ? undefined : (await s.repos.rooms.findByToken(token))?.name;
        const got = await outcome(async () => (await s.rooms.rename(await f.ctx(caller), token, name)).room.name);
        const what = `${caller} renames ${which} to ${JSON.stringify(name.slice(0, 20))}`;
        if (typeof expected === 'string') {
          assert.deepEqual(got, { ok: expected }, what);
          assert.equal((await s.repos.rooms.findByToken(token))?.name, expected, what);
        } else {
          assert.deepEqual(got, { status: expected[0], error: expected[1] }, what);
          if (before !== undefined) assert.equal((await s.repos.rooms.findByToken(token))?.name, before, `${what}: unchanged`);
        }
      }
    });
  });
}
