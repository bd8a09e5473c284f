/**
 * System messages whose actor is the command line (guests/cli) read as Talk's SystemMessage
 * parser words them (docs/reference/chat.md#system-messages: "An administrator …" for `cli` where Talk has that
 * wording, "{actor} …" where it has not; "You …" / "… you" for the viewer), and name the actor
 * as the rich object {type guest, id guest/cli, name Administration} (docs/reference/chat.md#rich-objects). Changes made with
 * `parley talk:room:*`, read over HTTP by the users concerned.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { runCli } from './helpers/cli.js';
import { useParley } from './helpers/fixtures.js';

const CLI = { type: 'guest', id: 'guest/cli', name: 'Administration', 'mention-id': 'guest/cli' };

for (const dialect of dialects()) {
  describe(`chat system messages by the command line [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['ann', 'ben', 'cid'] });

    const parley = async (...args: string[]) => {
      const r = await runCli(t.p.env, args);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      return r.stdout;
    };
    /** The chat as `who` reads it, oldest first. */
    const chat = async (token: string, who: string): Promise<any[]> => (await t.history(token, who, 200)).reverse();

    it('talk:room:* changes read "An administrator …" where Talk words it so, with the Administration actor', async () => {
      const token = /Room token: (\S+)/.exec(
        await parley('talk:room:create', 'Ops', '--user', 'ann', '--user', 'ben', '--user', 'cid', '--moderator', 'cid'),
      )![1]!;
      const updates: Array<[string, string]> = [
        ['--name', 'Ops 2'],
        ['--description', 'What we run'],
        ['--description', ''],
        ['--readonly', '1'],
        ['--readonly', '0'],
        ['--listable', '1'],
        ['--listable', '2'],
        ['--listable', '0'],
        ['--public', '1'],
        ['--password', 'a-long-room-password-1'],
        ['--password', ''],
        ['--public', '0'],
        ['--message-expiration', String(2 * 86400)],
        ['--message-expiration', '0'],
      ];
      for (const [option, value] of updates) await parley('talk:room:update', token, option, value);
      await parley('talk:room:promote', token, 'ann');
      await parley('talk:room:demote', token, 'ann');
      await parley('talk:room:remove', token, 'ann');
      await parley('talk:room:add', token, '--user', 'ann');

      // As ben reads them (the second user_added names him).
      const expected: Array<[string, string]> = [
        ['conversation_created', 'An administrator created the conversation'],
        ['user_added', 'An administrator added {user}'],
        ['user_added', 'An administrator added you'],
        ['user_added', 'An administrator added {user}'],
        ['moderator_promoted', 'An administrator promoted {user} to moderator'],
        ['conversation_renamed', 'An administrator renamed the conversation from "Ops" to "Ops 2"'],
        ['description_set', 'An administrator set the description'],
        ['description_removed', 'An administrator removed the description'],
        ['read_only', 'An administrator locked the conversation'],
        ['read_only_off', 'An administrator unlocked the conversation'],
        ['listable_users', 'An administrator opened the conversation to registered users'],
        ['listable_all', 'An administrator opened the conversation to registered users and users created with the Guests app'],
        ['listable_none', 'An administrator limited the conversation to the current participants'],
        ['guests_allowed', 'An administrator allowed guests'],
        ['password_set', 'An administrator set a password'],
        ['password_removed', 'An administrator removed the password'],
        ['guests_disallowed', 'An administrator disallowed guests'],
        // Talk has no administrator wording for these.
        ['message_expiration_enabled', '{actor} set the message expiration to 2 days'],
        ['message_expiration_disabled', '{actor} disabled message expiration'],
        ['moderator_promoted', 'An administrator promoted {user} to moderator'],
        ['moderator_demoted', 'An administrator demoted {user} from moderator'],
        ['user_removed', 'An administrator removed {user}'],
        ['user_added', 'An administrator added {user}'],
      ];
      const byBen = await chat(token, 'ben');
      assert.deepEqual(
        byBen.map((m) => [m.systemMessage, m.message]),
        expected,
      );
      for (const m of byBen) {
        assert.deepEqual([m.actorType, m.actorId, m.actorDisplayName], ['guests', 'cli', ''], m.systemMessage);
        assert.deepEqual(m.messageParameters.actor, CLI, m.systemMessage);
      }
      const user = byBen.filter((m) => m.systemMessage === 'moderator_promoted')[1]!.messageParameters.user;
      assert.deepEqual(user, { type: 'user', id: 'ann', name: 'ann', 'mention-id': 'ann' });

      // Ann reads the messages about her as "… you" (she was away between removal and re-adding).
      const aboutAnn = (await chat(token, 'ann')).filter((m) => m.messageParameters.user?.id === 'ann');
      assert.deepEqual(
        aboutAnn.map((m) => m.message),
        [
          'An administrator added you',
          'An administrator promoted you to moderator',
          'An administrator demoted you from moderator',
          'An administrator removed you',
          'An administrator added you',
        ],
      );
    });

    it('the viewer who acted reads "You …"; a self-join reads "{actor} joined the conversation" to others', async () => {
      const create = await t.call('POST', '/apps/spreed/api/v4/room', { as: as('ann'), body: { roomType: 3, roomName: 'Open' } });
      assert.equal(create.status, 201, create.text);
      const token = create.data.token as string;
      assert.equal((await t.call('PUT', `/apps/spreed/api/v4/room/${token}/description`, { as: as('ann'), body: { description: 'x' } })).status, 200);
      const listable = await t.call('PUT', `/apps/spreed/api/v4/room/${token}/listable`, { as: as('ann'), body: { scope: 1 } });
      assert.equal(listable.status, 200, listable.text);
      const join = await t.call('POST', `/apps/spreed/api/v4/room/${token}/participants/active`, { as: as('ben') });
      assert.equal(join.status, 200, join.text);
      const leave = await t.call('DELETE', `/apps/spreed/api/v4/room/${token}/participants/self`, { as: as('ben') });
      assert.equal(leave.status, 200, leave.text);
      const texts = (await chat(token, 'ann')).map((m) => m.message);
      assert.deepEqual(texts.slice(0, 3), ['You created the conversation', 'You set the description', 'You opened the conversation to registered users']);
      const joined = (await chat(token, 'ann')).find((m) => m.systemMessage === 'user_added');
      if (joined) assert.equal(joined.message, '{actor} joined the conversation');
    });
  });
}
