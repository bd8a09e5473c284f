/**
 * "No other moderators or owners would be left" (contract, DELETE attendees / participants/self)
 * holds under simultaneous requests in one process, and for the operator commands
 * (`talk:room:demote`, `talk:room:remove`): the decision and the write happen under the
 * conversation's row lock (docs/security.md). The two-process races are in races.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { expectRefusal, runCli } from './helpers/cli.js';
import { V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const ROUNDS = 15;

for (const dialect of dialects()) {
  describe(`a conversation keeps a moderator [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol', 'dave'] });

    /** A group conversation whose only moderators are bob and carol (the creator left), and dave. */
    async function twoModerators(): Promise<{ token: string; ids: Record<string, number> }> {
      const room = await t.call('POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.GROUP, roomName: 'mods' } });
      assert.equal(room.status, 201);
      const token = room.data.token;
      for (const u of ['bob', 'carol', 'dave']) {
        assert.equal((await t.call('POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: u } })).status, 200);
      }
      const people = (await t.call('GET', `${V4}/room/${token}/participants`, { as: as('alice') })).data as Array<{ actorId: string; attendeeId: number }>;
      const ids = Object.fromEntries(people.map((x) => [x.actorId, x.attendeeId]));
      for (const u of ['bob', 'carol']) {
        assert.equal((await t.call('POST', `${V4}/room/${token}/moderators`, { as: as('alice'), body: { attendeeId: ids[u] } })).status, 200);
      }
      assert.equal((await t.call('DELETE', `${V4}/room/${token}/participants/self`, { as: as('alice') })).status, 200);
      return { token, ids };
    }

    async function moderators(token: string): Promise<string[]> {
      const people = (await t.call('GET', `${V4}/room/${token}/participants`, { as: as('dave') })).data as Array<{ actorId: string; participantType: number }>;
      return people.filter((x) => x.participantType === ParticipantType.OWNER || x.participantType === ParticipantType.MODERATOR).map((x) => x.actorId);
    }

    it(`two moderators demoting each other at once, in one process (${ROUNDS} rounds): one stays`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const { token, ids } = await twoModerators();
        const [x, y] = await Promise.all([
          t.call('DELETE', `${V4}/room/${token}/moderators`, { as: as('bob'), body: { attendeeId: ids.carol } }),
          t.call('DELETE', `${V4}/room/${token}/moderators`, { as: as('carol'), body: { attendeeId: ids.bob } }),
        ]);
        assert.deepEqual([x.status, y.status].sort(), [200, 403], `round ${i}`);
        assert.equal((await moderators(token)).length, 1);
      }
    });

    it(`two moderators leaving at once, in one process (${ROUNDS} rounds): one stays, the other gets 400`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const { token, ids } = await twoModerators();
        // One leaves with participants/self, the other removes itself by attendee id.
        const [x, y] = await Promise.all([
          t.call('DELETE', `${V4}/room/${token}/participants/self`, { as: as('bob') }),
          t.call('DELETE', `${V4}/room/${token}/attendees`, { as: as('carol'), body: { attendeeId: ids.carol } }),
        ]);
        assert.deepEqual([x.status, y.status].sort(), [200, 400], `round ${i}`);
        assert.equal((await moderators(token)).length, 1);
      }
    });

    it('the operator cannot demote or remove the last moderator while others stay', async () => {
      const { token, ids } = await twoModerators();
      assert.equal((await t.call('DELETE', `${V4}/room/${token}/moderators`, { as: as('bob'), body: { attendeeId: ids.carol } })).status, 200);
      expectRefusal(await runCli(t.p.env, ['talk:room:demote', token, 'bob']), /moderators or owners/, 'demote');
      expectRefusal(await runCli(t.p.env, ['talk:room:remove', token, 'bob']), /moderators or owners/, 'remove');
      assert.deepEqual(await moderators(token), ['bob']);
      // With another moderator, both work.
      assert.equal((await runCli(t.p.env, ['talk:room:promote', token, 'carol'])).code, 0);
      assert.equal((await runCli(t.p.env, ['talk:room:demote', token, 'bob'])).code, 0);
      assert.equal((await runCli(t.p.env, ['talk:room:remove', token, 'bob'])).code, 0);
      assert.deepEqual(await moderators(token), ['carol']);
    });
  });
}
