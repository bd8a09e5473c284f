/**
 * `parley talk:room:create|update|delete|add|remove|promote|demote` and `talk:user:remove`
 * (docs/operators.md "Talk commands"), run in this process (runCli) against the database of a
 * running Parley; each success is checked through the HTTP API, each refusal exits 1 with
 * `error: ...` and leaves the conversations and attendees exactly as they were. One real process
 * per database checks the binary's exit code.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRepository } from '../src/db/repositories/metrics.js';
import { as, createUser, dialects } from './helpers/parley.js';
import { expectRefusal, runCli, spawnCli, type Run } from './helpers/cli.js';
import { attendeesOf, createRoom, roomRow, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`talk:room:* and talk:user:remove [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'eve', 'frank'] });

    const parley = (...args: string[]) => runCli(t.p.env, args);
    const ok = (r: Run) => {
      assert.equal(r.code, 0, r.stdout + r.stderr);
      return r;
    };
    const tokenOf = (r: Run) => /Room token: (\S+)/.exec(ok(r).stdout)![1];

    /** Conversations and attendees of the whole database, to show a refusal changed nothing. */
    const totals = async () => {
      const repo = new MetricsRepository(t.p.services.db.kysely);
      return { rooms: await repo.roomsByType(), attendees: await repo.attendeesByActorType() };
    };
    /** One conversation's row and attendee rows. */
    const stateOf = async (token: string) => ({ room: await roomRow(t.p, token), attendees: await attendeesOf(t.p, token) });

    const roomAs = async (user: string, token: string) => t.call('GET', `${V4}/room/${token}`, { as: as(user) });
    const tokensOf = async (user: string): Promise<string[]> => {
      const r = await t.call('GET', `${V4}/room`, { as: as(user) });
      assert.equal(r.status, 200, r.text);
      return r.data.map((x: any) => x.token);
    };
    const typeOf = async (user: string, token: string): Promise<number | undefined> => {
      const r = await roomAs(user, token);
      return r.status === 200 ? r.data.participantType : undefined;
    };
    /** A group conversation of `owner` with `others` added through the API. */
    const groupRoom = async (owner: string, name: string, others: string[] = []) => {
      const room = await createRoom(t.p, owner, { roomType: RoomType.GROUP, roomName: name });
      for (const u of others) {
        const r = await t.call('POST', `${V4}/room/${room.token}/participants`, { as: as(owner), body: { newParticipant: u, source: 'users' } });
        assert.equal(r.status, 200, r.text);
      }
      return room.token as string;
    };

    before(async () => {
      for (const u of ['carol', 'dave']) await createUser(t.p, u, { groups: ['team'] });
    });

    it('the real binary exits 1 with `error:` for an unknown conversation', async () => {
      const r = await spawnCli(t.p.env, ['talk:room:delete', 'nosuchroom']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.equal(r.stderr, 'error: Room not found.\n');
    });

    it('talk:room:create with users, a group, moderators, an owner and settings; the API shows them', async () => {
      const token = tokenOf(
        await parley(
          'talk:room:create',
          'Operations',
          '--user',
          'alice',
          '--user',
          'bob',
          '--group',
          'team',
          '--moderator',
          'bob',
          '--moderator',
          'carol',
          '--owner',
          'alice',
          '--description',
          'Made by the operator',
          '--readonly',
          '--listable',
          '1',
          '--message-expiration',
          '3600',
        ),
      );
      const r = await roomAs('alice', token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.name, 'Operations');
      assert.equal(r.data.type, RoomType.GROUP);
      assert.equal(r.data.description, 'Made by the operator');
      assert.equal(r.data.readOnly, 1);
      assert.equal(r.data.listable, 1);
      assert.equal(r.data.messageExpiration, 3600);
      assert.equal(r.data.participantType, ParticipantType.OWNER);
      assert.equal(await typeOf('bob', token), 2);
      assert.equal(await typeOf('carol', token), 2);
      assert.equal(await typeOf('dave', token), 3);
      assert.ok((await tokensOf('dave')).includes(token), 'group members see it in GET /room');
      const list = await t.call('GET', `${V4}/room/${token}/participants`, { as: as('alice') });
      assert.ok(
        list.data.some((x: any) => x.actorType === 'groups' && x.actorId === 'team'),
        'the group is a participant',
      );
      // The operator is not an attendee.
      assert.deepEqual(
        list.data
          .filter((x: any) => x.actorType === 'users')
          .map((x: any) => x.actorId)
          .sort(),
        ['alice', 'bob', 'carol', 'dave'],
      );

      const pub = tokenOf(await parley('talk:room:create', 'Open house', '--public', '--password', 'a long enough password', '--user', 'eve'));
      const open = await roomAs('eve', pub);
      assert.equal(open.data.type, RoomType.PUBLIC);
      assert.equal(open.data.hasPassword, true);
      assert.equal(open.data.participantType, ParticipantType.USER, 'no owner unless --owner');
      assert.equal((await roomAs('frank', pub)).status, 200, 'a public conversation is visible to others');
    });

    it('talk:room:create refusals create nothing', async () => {
      const before = await totals();
      const long = 'x'.repeat(256);
      const cases: Array<[string[], RegExp]> = [
        [['   '], /Invalid room name/],
        [[long], /Invalid room name/],
        [['Room', '--user', 'nobody'], /User 'nobody' not found/],
        [['Room', '--user', 'alice', '--group', 'nogroup'], /Group 'nogroup' not found/],
        [['Room', '--listable', '3'], /--listable must be 0 \(participants only\), 1 \(regular users\) or 2/],
        [['Room', '--listable', 'all'], /--listable must be a whole number/],
        [['Room', '--message-expiration', '-5'], /--message-expiration must be a whole number/],
        [['Room', '--message-expiration', '99999999999'], /--message-expiration must be 0 \(off\) or a number of seconds/],
        [['Room', '--description', 'd'.repeat(2001)], /--description can be at most 2000 characters/],
        [['Room', '--password', 'a long enough password'], /Unable to add password protection to private room/],
        [['Room', '--public', '--password', 'short'], /at least 10 characters/],
        [['Room', '--user', 'alice', '--moderator', 'bob'], /User 'bob' is no participant/],
        [['Room', '--user', 'alice', '--owner', 'eve'], /User 'eve' is no participant/],
      ];
      for (const [args, pattern] of cases) expectRefusal(await parley('talk:room:create', ...args), pattern);
      assert.deepEqual(await totals(), before);
    });

    it('talk:room:update changes every setting in one command; the API shows them', async () => {
      const token = await groupRoom('alice', 'Before', ['bob']);
      ok(
        await parley(
          'talk:room:update',
          token,
          '--name',
          'After',
          '--description',
          'New description',
          '--public',
          '1',
          '--password',
          'a long enough password',
          '--readonly',
          '1',
          '--listable',
          '2',
          '--message-expiration',
          '60',
          '--owner',
          'bob',
        ),
      );
      const r = await roomAs('bob', token);
      assert.equal(r.data.name, 'After');
      assert.equal(r.data.description, 'New description');
      assert.equal(r.data.type, RoomType.PUBLIC);
      assert.equal(r.data.hasPassword, true);
      assert.equal(r.data.readOnly, 1);
      assert.equal(r.data.listable, 2);
      assert.equal(r.data.messageExpiration, 60);
      assert.equal(r.data.participantType, ParticipantType.OWNER, 'bob is the owner');
      assert.equal(await typeOf('alice', token), 3, 'the old owner is a normal user');

      ok(await parley('talk:room:update', token, '--password', '', '--public', '0', '--readonly', '0', '--owner', ''));
      const after = await roomAs('bob', token);
      assert.equal(after.data.type, RoomType.GROUP);
      assert.equal(after.data.hasPassword, false);
      assert.equal(after.data.readOnly, 0);
      assert.equal(after.data.participantType, ParticipantType.USER, 'no owner left');
    });

    it('talk:room:update refusals change nothing, even when an earlier option was valid', async () => {
      const token = await groupRoom('alice', 'Steady', ['bob']);
      const oneToOne = await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'eve' });
      const before = await stateOf(token);
      const cases: Array<[string[], RegExp]> = [
        [['nosuchroom', '--name', 'X'], /Room not found/],
        [[oneToOne.token, '--name', 'X'], /Room is no group call/],
        [[token, '--name', 'Changed', '--public', '2'], /--public must be 0 or 1/],
        [[token, '--name', 'Changed', '--readonly', 'yes'], /--readonly must be 0 or 1/],
        [[token, '--name', 'Changed', '--listable', '7'], /--listable must be 0/],
        [[token, '--name', 'Changed', '--owner', 'eve'], /User 'eve' is no participant/],
        [[token, '--name', 'Changed', '--password', 'a long enough password'], /Unable to add password protection to private room/],
        [[token, '--name', 'Changed', '--public', '1', '--password', 'short'], /at least 10 characters/],
        [[token, '--name', 'Changed', '--description', 'd'.repeat(2001)], /--description can be at most 2000/],
        [[token, '--description', 'Changed', '--message-expiration', '3000000000'], /--message-expiration must be 0/],
        [[token, '--description', 'Changed', '--name', ' '], /Invalid room name/],
      ];
      for (const [args, pattern] of cases) expectRefusal(await parley('talk:room:update', ...args), pattern);
      assert.deepEqual(await stateOf(token), before);
      assert.equal((await roomAs('bob', token)).data.name, 'Steady');
    });

    it('talk:room:delete deletes a group conversation; refusals keep it', async () => {
      const token = await groupRoom('alice', 'Doomed', ['bob']);
      const oneToOne = await createRoom(t.p, 'bob', { roomType: RoomType.ONE_TO_ONE, invite: 'frank' });
      expectRefusal(await parley('talk:room:delete', oneToOne.token), /Room is no group call/);
      assert.equal((await roomAs('bob', oneToOne.token)).status, 200);
      ok(await parley('talk:room:delete', token));
      assert.equal((await roomAs('alice', token)).status, 404);
      assert.ok(!(await tokensOf('bob')).includes(token));
      expectRefusal(await parley('talk:room:delete', token), /Room not found/);
    });

    it('talk:room:add adds users and group members; an unknown one adds nobody', async () => {
      const token = await groupRoom('alice', 'Growing');
      const before = await stateOf(token);
      expectRefusal(await parley('talk:room:add', token, '--user', 'eve', '--user', 'nobody'), /User 'nobody' not found/);
      expectRefusal(await parley('talk:room:add', token, '--user', 'eve', '--group', 'nogroup'), /Group 'nogroup' not found/);
      expectRefusal(await parley('talk:room:add', token), /nothing to add/);
      expectRefusal(await parley('talk:room:add', 'nosuchroom', '--user', 'eve'), /Room not found/);
      assert.deepEqual(await stateOf(token), before);

      ok(await parley('talk:room:add', token, '--user', 'eve', '--group', 'team'));
      for (const u of ['eve', 'carol', 'dave']) assert.ok((await tokensOf(u)).includes(token), `${u} sees it`);
      assert.equal(await typeOf('eve', token), 3);
      ok(await parley('talk:room:add', token, '--user', 'alice'));
      assert.equal(await typeOf('alice', token), 1, 'an existing participant keeps the role');
    });

    it('talk:room:promote and demote; demoting a non-moderator changes nobody', async () => {
      const token = await groupRoom('alice', 'Roles', ['bob', 'eve']);
      ok(await parley('talk:room:promote', token, 'bob'));
      assert.equal(await typeOf('bob', token), 2);

      const before = await stateOf(token);
      expectRefusal(await parley('talk:room:demote', token, 'bob', 'eve'), /eve: Only moderators/);
      expectRefusal(await parley('talk:room:promote', token, 'eve', 'bob'), /bob: Only normal users/);
      expectRefusal(await parley('talk:room:promote', token, 'alice'), /alice: Only normal users \(type 3\) and guests \(type 4\) can be promoted/);
      expectRefusal(await parley('talk:room:promote', token, 'eve', 'frank'), /User 'frank' is no participant/);
      expectRefusal(await parley('talk:room:demote', 'nosuchroom', 'bob'), /Room not found/);
      assert.deepEqual(await stateOf(token), before);

      ok(await parley('talk:room:demote', token, 'bob'));
      assert.equal(await typeOf('bob', token), 3);
      assert.equal(await typeOf('eve', token), 3);
    });

    it('talk:room:remove removes participants whatever their role; an unknown one removes nobody', async () => {
      const token = await groupRoom('alice', 'Shrinking', ['bob', 'eve', 'frank']);
      ok(await parley('talk:room:promote', token, 'bob'));
      const before = await stateOf(token);
      expectRefusal(await parley('talk:room:remove', token, 'eve', 'carol'), /User 'carol' is no participant/);
      expectRefusal(await parley('talk:room:remove', 'nosuchroom', 'eve'), /Room not found/);
      assert.deepEqual(await stateOf(token), before);

      ok(await parley('talk:room:remove', token, 'bob', 'eve'));
      assert.ok(!(await tokensOf('bob')).includes(token));
      assert.ok(!(await tokensOf('eve')).includes(token));
      assert.equal(await typeOf('frank', token), 3);
      assert.equal(await typeOf('alice', token), 1);
    });

    it('talk:user:remove --private-only, then everything; refusals change nothing', async () => {
      const goneName = 'Gone Soon';
      await createUser(t.p, 'gone', { displayName: goneName });
      const shared = await groupRoom('alice', 'Shared', ['gone']);
      const listed = await groupRoom('alice', 'Listed', ['gone']);
      ok(await parley('talk:room:update', listed, '--listable', '1'));
      const publicRoom = tokenOf(await parley('talk:room:create', 'Public', '--public', '--user', 'alice', '--user', 'gone'));
      const alone = tokenOf(await parley('talk:room:create', 'Alone', '--user', 'gone'));
      const oneToOne = (await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'gone' })).token;

      const before = await totals();
      expectRefusal(await parley('talk:user:remove', '--user', 'gone', '--user', 'nobody'), /User 'nobody' not found/);
      expectRefusal(await parley('talk:user:remove'), /give at least one --user/);
      assert.deepEqual(await totals(), before);

      ok(await parley('talk:user:remove', '--user', 'gone', '--private-only'));
      assert.deepEqual((await tokensOf('gone')).sort(), [listed, publicRoom, oneToOne].sort());
      assert.equal(await roomRow(t.p, alone), undefined, 'a conversation they were alone in is deleted');
      assert.equal(await typeOf('alice', shared), 1, 'the others stay');

      ok(await parley('talk:user:remove', '--user', 'gone'));
      assert.deepEqual(await tokensOf('gone'), []);
      const former = await roomAs('alice', oneToOne);
      assert.equal(former.status, 200);
      assert.equal(former.data.type, RoomType.ONE_TO_ONE_FORMER, 'the one-to-one became a former one-to-one');
      assert.equal(former.data.displayName, goneName, 'named after the user who went, as Talk renames it');
      assert.ok((await tokensOf('alice')).includes(publicRoom));
    });
  });
}
