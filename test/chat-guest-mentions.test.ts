/**
 * Guests' messages that mention anybody (docs/reference/chat.md#common-rules "Guests", Talk's
 * ChatManager::sendMessage): at most 50 a day from one address, then 429 `mentions` and nothing
 * stored; messages without a mention, users and the other endpoints are not limited. The
 * `rate-limits` job forgets records older than the longest window. The same on SQLite and
 * PostgreSQL. Every request of a suite comes from one address (the suite's own server).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { NO_THROTTLE, ParticipantType, RoomType, useParley, type GuestFixture, type RoomFixture } from './helpers/fixtures.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { GUEST_MENTIONS_RATE, LONGEST_RATE_WINDOW_SECONDS } from '../src/domain/rate-limits.js';
import { nowSeconds } from '../src/domain/time.js';

const CHAT = '/apps/spreed/api/v1/chat';

for (const dialect of dialects()) {
  describe(`guests' mentions are rate-limited [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    let room: RoomFixture;
    let guest: GuestFixture;

    before(async () => {
      room = await t.newRoom('alice', { type: RoomType.PUBLIC, members: ['bob'] });
      guest = await t.newGuest(room);
    });

    const send = (who: any, message: string, format: 'json' | 'xml' = 'json') =>
      t.call('POST', `${CHAT}/${room.token}`, { as: who, body: { message }, format });
    const stored = async () => (await t.history(room, 'alice', 200)).filter((m) => m.messageType === 'comment').length;

    it(`takes ${GUEST_MENTIONS_RATE.limit} messages with mentions a day from one address, then 429 mentions and stores nothing`, async () => {
      assert.equal(GUEST_MENTIONS_RATE.limit, 50);
      assert.equal(GUEST_MENTIONS_RATE.windowSeconds, 86400);
      for (let i = 0; i < GUEST_MENTIONS_RATE.limit; i++) {
        const r = await send(guest.caller, i % 2 ? `@alice look ${i}` : `hi @"guest/nobody" ${i}`);
        assert.equal(r.status, 201, `message ${i}: ${r.text}`);
      }
      const before = await stored();
      const refused = await send(guest.caller, 'one more for @bob');
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.data.error, 'mentions');
      // An unresolved mention counts as Nextcloud's Comment::getMentions counts it.
      assert.equal((await send(guest.caller, 'and @nosuchuser')).status, 429);
      const xml = await send(guest.caller, '@all hello', 'xml');
      assert.equal(xml.status, 429);
      assert.match(xml.text, /<statuscode>429<\/statuscode>[\s\S]*<error>mentions<\/error>/);
      assert.equal(await stored(), before, 'nothing was stored');
    });

    it('a message without a mention still goes through, and so do users and other guests’ plain messages', async () => {
      const plain = await send(guest.caller, 'no mention here, just an e-mail a@b.c');
      assert.equal(plain.status, 201, plain.text);
      assert.equal((await send(as('alice'), '@bob still fine')).status, 201);
      // The limit is per address: another guest from the same address is refused too.
      const other = await t.newGuest(room);
      assert.equal((await send(other.caller, '@alice hello')).status, 429);
      assert.equal((await send(other.caller, 'hello')).status, 201);
      // A guest moderator is a guest.
      const moderator = await t.newGuest(room, ParticipantType.GUEST_MODERATOR);
      assert.equal((await send(moderator.caller, '@alice hello')).status, 429);
    });

    it('the rate-limits job forgets records older than a day, not newer ones', async () => {
      const repo = t.services.repos.userRateLimits;
      const now = nowSeconds();
      await repo.take('alice', { action: 'test-old', limit: 10, windowSeconds: LONGEST_RATE_WINDOW_SECONDS * 2 }, now - LONGEST_RATE_WINDOW_SECONDS - 10);
      const outcome = await runJobIfDue(
        t.services,
        jobs.find((j) => j.name === 'rate-limits')!,
        true,
      );
      assert.equal(outcome.status, 'ok', outcome.error);
      assert.match(outcome.summary ?? '', /^1 records forgotten$/);
      // The guests' records of this day stay: still refused.
      assert.equal((await send(guest.caller, '@alice again')).status, 429);
    });
  });
}
