/**
 * Requests arriving together on one conversation share its room-and-attendee lookup on
 * PostgreSQL (cache/turn-batch.ts, RoomsRepository.findByTokenWithMembers; on SQLite each runs
 * its own): each caller still gets its own attendee row, and a caller who is not a participant
 * still gets 404 (docs/reference/conversations.md#lookup-and-visibility).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from './helpers/parley.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`room lookups of requests arriving together [${dialect}]`, () => {
    const t = useParley(dialect);

    it('each member gets its own attendee, an outsider 404, all asked at once', async () => {
      const members = [];
      for (let i = 0; i < 12; i++) members.push(await t.newUser(`batch${i}`));
      const outsider = await t.newUser('outsider');
      const room = await t.newRoom('batch0', { type: RoomType.GROUP, members: members.slice(1).map((m) => m.id) });
      const id = await t.say(room, 'batch0', 'hello');
      // One password check each, one after another (all at once from one address would reach the
      // login throttle's cap); the requests below then use the cached credentials.
      for (const u of [...members, outsider]) await t.call('GET', `${V1}/chat/${room.token}`, { as: u.caller, query: { lookIntoFuture: 0, limit: 1 } });

      // Moving the read marker answers the caller's own conversation record.
      const answers = await Promise.all(
        [...members, outsider].map((u) => t.call('POST', `${V1}/chat/${room.token}/read`, { as: u.caller, body: { lastReadMessage: id } })),
      );
      for (const [i, m] of members.entries()) {
        assert.equal(answers[i].status, 200, answers[i].text);
        assert.equal(answers[i].data.actorId, m.id);
        assert.equal(answers[i].data.lastReadMessage, id);
      }
      assert.equal(answers[members.length].status, 404);
    });
  });
}
