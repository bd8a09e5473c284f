/**
 * Polls (docs/reference/chat.md#polls): create (the object_shared chat message), show, vote
 * (replace, withdraw, maxVotes), close; public and hidden results per viewer; poll_voted
 * (anonymous) and poll_closed; every refusal; drafts (save, list, read, edit, delete).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, seedUser, setRoom } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`polls [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let room: any;
    before(async () => {
      for (const u of ['alice', 'bob', 'carol', 'dave']) await createUser(t.p, u, { displayName: u.toUpperCase() });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Votes' });
      await seedUser(t.p, room.token, 'bob');
      await seedUser(t.p, room.token, 'carol');
    });

    const create = (who: string, body: Record<string, unknown>, token = room.token) => t.call('POST', `${V1}/poll/${token}`, { as: as(who), body });
    const show = (who: string, id: number | string) => t.call('GET', `${V1}/poll/${room.token}/${id}`, { as: as(who) });
    const vote = (who: string, id: number | string, optionIds: unknown[]) =>
      t.call('POST', `${V1}/poll/${room.token}/${id}`, { as: as(who), body: { optionIds } });
    const close = (who: string, id: number | string) => t.call('DELETE', `${V1}/poll/${room.token}/${id}`, { as: as(who) });
    const history = (who = 'alice') => t.history(room, who);

    it('201: the poll and its object_shared chat message', async () => {
      const r = await create('bob', { question: '  Lunch?  ', options: ['Pizza', 'Sushi', 'Salad'], resultMode: 0, maxVotes: 1 });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.data, {
        id: r.data.id,
        question: 'Lunch?',
        options: ['Pizza', 'Sushi', 'Salad'],
        actorType: 'users',
        actorId: 'bob',
        actorDisplayName: 'BOB',
        status: 0,
        resultMode: 0,
        maxVotes: 1,
        votes: [],
        numVoters: 0,
        votedSelf: [],
      });
      const msg = (await history())[0];
      assert.equal(msg.messageType, 'comment');
      assert.equal(msg.systemMessage, '');
      assert.equal(msg.message, '{object}');
      assert.deepEqual(msg.messageParameters.object, { type: 'talk-poll', id: String(r.data.id), name: 'Lunch?' });
      assert.equal(msg.messageParameters.actor.id, 'bob');
      const rec = await t.call('GET', `/apps/spreed/api/v4/room/${room.token}`, { as: as('alice') });
      assert.equal(rec.data.lastMessage.id, msg.id);
      assert.equal(rec.data.unreadMessages, 1, 'the poll is the one message alice has not read');
      const author = await t.call('GET', `/apps/spreed/api/v4/room/${room.token}`, { as: as('bob') });
      assert.equal(author.data.lastReadMessage, msg.id, "the author's read marker moved");
      assert.equal(author.data.unreadMessages, 0);
    });

    it('public results: hidden until one votes; poll_voted is anonymous; replace, withdraw; close shows details', async () => {
      const { data: poll } = await create('alice', { question: 'Colour', options: ['Red', 'Green', 'Blue'], resultMode: 0, maxVotes: 2 });
      const v = await vote('bob', poll.id, [0, 2]);
      assert.equal(v.status, 200, v.text);
      assert.deepEqual(v.data.votedSelf, [0, 2]);
      assert.deepEqual(v.data.votes, { 'option-0': 1, 'option-2': 1 });
      assert.equal(v.data.numVoters, 1);
      // Carol has not voted: no results, no voter count; the author sees the count.
      const carol = (await show('carol', poll.id)).data;
      assert.deepEqual(carol.votes, []);
      assert.equal(carol.numVoters, 0);
      const author = (await show('alice', poll.id)).data;
      assert.deepEqual(author.votes, []);
      assert.equal(author.numVoters, 1);
      const voted = (await history()).find((m) => m.systemMessage === 'poll_voted');
      assert.ok(voted);
      assert.equal(voted.actorType, 'guests');
      assert.equal(voted.actorId, 'system');
      assert.equal(voted.messageParameters.actor, undefined);
      assert.deepEqual(voted.messageParameters.poll, { type: 'talk-poll', id: String(poll.id), name: 'Colour' });
      // Voting again replaces; an empty list withdraws.
      assert.deepEqual((await vote('bob', poll.id, [1])).data.votes, { 'option-1': 1 });
      await vote('carol', poll.id, [1]);
      const withdrawn = await vote('bob', poll.id, []);
      assert.deepEqual(withdrawn.data.votedSelf, []);
      assert.deepEqual(withdrawn.data.votes, []);
      assert.deepEqual((await show('carol', poll.id)).data.votes, { 'option-1': 1 });
      const c = await close('alice', poll.id);
      assert.equal(c.status, 200, c.text);
      assert.equal(c.data.status, 1);
      assert.deepEqual(c.data.votes, { 'option-1': 1 });
      assert.deepEqual(c.data.details, [{ actorType: 'users', actorId: 'carol', actorDisplayName: 'CAROL', optionId: 1 }]);
      const closed = (await history('bob')).find((m) => m.systemMessage === 'poll_closed');
      assert.equal(closed.actorId, 'alice');
      assert.equal(closed.message, '{actor} ended the poll {poll}');
      assert.equal(closed.messageParameters.poll.id, String(poll.id));
      // After closing everyone sees the result.
      assert.deepEqual((await show('bob', poll.id)).data.votes, { 'option-1': 1 });
    });

    it('hidden results: no votes until closed, no poll_voted, no details', async () => {
      const before = (await history()).filter((m) => m.systemMessage === 'poll_voted').length;
      const { data: poll } = await create('alice', { question: 'Secret', options: ['Yes', 'No'], resultMode: 1 });
      const v = await vote('bob', poll.id, [0]);
      assert.deepEqual(v.data.votes, []);
      assert.equal(v.data.numVoters, 0);
      assert.deepEqual(v.data.votedSelf, [0]);
      assert.equal((await show('alice', poll.id)).data.numVoters, 1);
      assert.equal((await history()).filter((m) => m.systemMessage === 'poll_voted').length, before);
      const c = await close('alice', poll.id);
      assert.deepEqual(c.data.votes, { 'option-0': 1 });
      assert.equal(c.data.details, undefined);
    });

    it('vote: 400 options (duplicates, too many, out of range, not numeric), 400 poll closed, 404', async () => {
      const { data: poll } = await create('alice', { question: 'Pick', options: ['A', 'B', 'C'], maxVotes: 2 });
      for (const bad of [[0, 0], [0, 1, 2], [3], [-1], ['x']]) {
        const r = await vote('bob', poll.id, bad);
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.equal(r.data.error, 'options');
      }
      const notList = await t.call('POST', `${V1}/poll/${room.token}/${poll.id}`, { as: as('bob'), body: { optionIds: 'x' } });
      assert.deepEqual([notList.status, notList.data?.error], [400, 'options'], notList.text);
      for (const id of ['abc', '-1']) {
        const r = await t.call('GET', `${V1}/poll/${room.token}/${id}`, { as: as('bob') });
        assert.deepEqual([r.status, r.data?.error], [400, 'poll'], `${id}: ${r.text}`);
      }
      assert.deepEqual((await show('bob', poll.id)).data.votedSelf, []);
      assert.equal((await vote('bob', 99999999, [0])).status, 404);
      assert.equal((await vote('dave', poll.id, [0])).status, 404);
      await close('alice', poll.id);
      const r = await vote('bob', poll.id, [0]);
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'poll');
    });

    it('close: 403 for others, 400 when already closed, moderators may close, 404', async () => {
      const { data: poll } = await create('bob', { question: 'Mine', options: ['A', 'B'] });
      const r = await close('carol', poll.id);
      assert.equal(r.status, 403);
      assert.equal(r.data.error, 'poll');
      assert.equal((await close('alice', poll.id)).status, 200);
      const again = await close('bob', poll.id);
      assert.equal(again.status, 400);
      assert.equal(again.data.error, 'poll');
      assert.equal((await close('bob', 99999999)).status, 404);
      assert.equal((await show('bob', 99999999)).status, 404);
      assert.equal((await show('dave', poll.id)).status, 404);
    });

    it('create: 400 question, options, room type, draft; 403 read-only / permission; 412 lobby; 404', async () => {
      const bad = async (body: Record<string, unknown>, error: string) => {
        const r = await create('bob', body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.data.error, error);
      };
      await bad({ question: '   ', options: ['A', 'B'] }, 'question');
      await bad({ question: 'x'.repeat(32001), options: ['A', 'B'] }, 'question');
      await bad({ options: ['A', 'B'] }, 'question');
      await bad({ question: 'Q', options: ['A', '  '] }, 'options');
      await bad({ question: 'Q' }, 'options');
      await bad({ question: 'Q', options: ['A', 'B'], resultMode: 2 }, 'resultMode');
      await bad({ question: 'Q', options: ['A', 'B'], draft: true }, 'draft');
      await bad({ question: 'Q\u0000', options: ['A', 'B'] }, 'question');
      await bad({ question: 'Q', options: 'A' }, 'options');
      await bad({ question: 'Q', options: [['A'], 'B'] }, 'options');
      await bad({ question: 'Q', options: ['A\u0000', 'B'] }, 'options');
      await bad({ question: 'Q', options: ['A', 'B'], maxVotes: -1 }, 'maxVotes');
      await bad({ question: 'Q', options: ['A', 'B'], maxVotes: 'x' }, 'maxVotes');
      await bad({ question: 'Q', options: ['A', 'B'], resultMode: 'x' }, 'resultMode');
      const one = await t.call('POST', '/apps/spreed/api/v4/room', { as: as('alice'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'bob' } });
      const r1 = await create('alice', { question: 'Q', options: ['A', 'B'] }, one.data.token);
      assert.equal(r1.status, 400);
      assert.equal(r1.data.error, 'room');
      assert.equal((await create('dave', { question: 'Q', options: ['A', 'B'] })).status, 404);
      const locked = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Locked polls' });
      await seedUser(t.p, locked.token, 'bob');
      await setRoom(t.p, locked.token, { read_only: 1 });
      assert.equal((await create('bob', { question: 'Q', options: ['A', 'B'] }, locked.token)).status, 403);
      await setRoom(t.p, locked.token, { read_only: 0, lobby_state: 1, default_permissions: 1 | 2 });
      assert.equal((await create('bob', { question: 'Q', options: ['A', 'B'] }, locked.token)).status, 412);
      await setRoom(t.p, locked.token, { lobby_state: 0 });
      const perm = await create('bob', { question: 'Q', options: ['A', 'B'] }, locked.token);
      assert.equal(perm.status, 403);
      assert.equal(perm.data.error, 'permission');
    });

    it('a refused create stores neither a poll nor a chat message', async () => {
      const polls = async () =>
        Number(
          (
            await t.services.db.kysely
              .selectFrom('polls')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = (await history())[0].id;
      const pollsBefore = await polls();
      for (const body of [
        { question: '   ', options: ['A', 'B'] },
        { question: 'Q', options: ['A'] },
        { question: 'Q', options: ['A', 'B'], maxVotes: 'x' },
      ]) {
        assert.equal((await create('bob', body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await history())[0].id, before);
      assert.equal(await polls(), pollsBefore);
    });

    it('404 poll for a poll of another conversation (show, vote, close); 412 in the lobby for show and vote', async () => {
      const other = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Other votes' });
      await seedUser(t.p, other.token, 'bob');
      const { data: foreign } = await create('alice', { question: 'Elsewhere', options: ['A', 'B'] }, other.token);
      for (const r of [await show('bob', foreign.id), await vote('bob', foreign.id, [0]), await close('alice', foreign.id)]) {
        assert.deepEqual([r.status, r.data?.error], [404, 'poll'], r.text);
      }
      const seen = await t.call('GET', `${V1}/poll/${other.token}/${foreign.id}`, { as: as('bob') });
      assert.deepEqual([seen.data.status, seen.data.votedSelf], [0, []], 'the refused vote and close changed nothing');
      await setRoom(t.p, other.token, { lobby_state: 1 });
      const held = await t.call('GET', `${V1}/poll/${other.token}/${foreign.id}`, { as: as('bob') });
      assert.equal(held.status, 412, held.text);
      const heldVote = await t.call('POST', `${V1}/poll/${other.token}/${foreign.id}`, { as: as('bob'), body: { optionIds: [0] } });
      assert.equal(heldVote.status, 412, heldVote.text);
      assert.equal((await t.call('GET', `${V1}/poll/${other.token}/${foreign.id}`, { as: as('alice') })).status, 200, 'moderators pass');
      await setRoom(t.p, other.token, { lobby_state: 0 });
      assert.deepEqual((await t.call('GET', `${V1}/poll/${other.token}/${foreign.id}`, { as: as('bob') })).data.votedSelf, [], 'the held vote was not stored');
    });

    it('concurrent votes of several users all count', async () => {
      const { data: poll } = await create('alice', { question: 'Race', options: ['A', 'B'] });
      await Promise.all(['alice', 'bob', 'carol'].map((u) => vote(u, poll.id, [1])));
      const c = await close('alice', poll.id);
      assert.deepEqual(c.data.votes, { 'option-1': 3 });
      assert.equal(c.data.numVoters, 3);
    });

    it('a poll whose history is cleared right after it was posted is answered as created (201), never 404', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Cleared meanwhile' });
      await seedUser(t.p, r.token, 'bob');
      // Between the poll's commit and its answer (chat.object-shared is emitted there, and the
      // emitter awaits its handlers), a moderator clears the history, which removes the poll.
      let clearOnce = true;
      let cleared: any;
      t.services.events.on('chat.object-shared', async ({ room: shared }) => {
        if (!clearOnce || shared.token !== r.token) return;
        clearOnce = false;
        cleared = await t.call('DELETE', `${V1}/chat/${r.token}`, { as: as('alice') });
      });
      const created = await create('bob', { question: 'Still there?', options: ['y', 'n'] }, r.token);
      assert.equal(cleared?.status, 200, 'the history was cleared in between');
      assert.equal(created.status, 201, created.text);
      assert.equal(created.data.question, 'Still there?');
      assert.equal((await show('bob', created.data.id)).status, 404, 'the clearing removed it');
    });

    it('drafts: a moderator saves one (200, nothing posted), lists, reads, edits and deletes it; for anyone else it does not exist', async () => {
      const before = (await history()).length;
      const d = await create('alice', { question: ' Offsite? ', options: ['May', 'June'], resultMode: 1, maxVotes: 1, draft: true });
      assert.equal(d.status, 200, d.text);
      const draft = {
        id: d.data.id,
        question: 'Offsite?',
        options: ['May', 'June'],
        actorType: 'users',
        actorId: 'alice',
        actorDisplayName: 'ALICE',
        status: 2,
        resultMode: 1,
        maxVotes: 1,
      };
      assert.deepEqual(d.data, draft, "Talk's draft shape: no results");
      assert.equal((await history()).length, before, 'a draft posts nothing');
      const second = await create('alice', { question: 'Later', options: ['A', 'B'], draft: true });
      assert.equal(second.status, 200);

      const drafts = (who: string, opts: Record<string, unknown> = {}) => t.call('GET', `${V1}/poll/${room.token}/drafts`, { as: as(who), ...opts });
      const list = await drafts('alice');
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.data.map((p: any) => p.id),
        [d.data.id, second.data.id],
        'oldest first',
      );
      assert.deepEqual(list.data[0], draft);
      assert.match((await drafts('alice', { format: 'xml' })).text, /<question>Offsite\?<\/question>/);
      assert.equal((await drafts('bob')).status, 403, 'moderators only');
      assert.equal((await drafts('dave')).status, 404, 'not a participant');

      assert.equal((await show('alice', d.data.id)).data.status, 2, 'moderators read a draft');
      const hidden = await show('bob', d.data.id);
      assert.deepEqual([hidden.status, hidden.data.error], [404, 'poll'], 'for others a draft does not exist');
      for (const who of ['alice', 'bob']) {
        const v = await vote(who, d.data.id, [0]);
        assert.deepEqual([v.status, v.data.error], [404, 'poll'], `nobody votes on a draft (${who})`);
      }

      const edit = (who: string, id: number | string, body: Record<string, unknown>) =>
        t.call('POST', `${V1}/poll/${room.token}/draft/${id}`, { as: as(who), body });
      const e = await edit('alice', d.data.id, { question: 'Offsite in summer?', options: ['July', 'August', 'Never'], resultMode: 0, maxVotes: 2 });
      assert.equal(e.status, 200, e.text);
      assert.deepEqual(e.data, { ...draft, question: 'Offsite in summer?', options: ['July', 'August', 'Never'], resultMode: 0, maxVotes: 2 });
      const open = await create('alice', { question: 'Open', options: ['A', 'B'] });
      const refused: Array<[string, number | string, Record<string, unknown>, number, string]> = [
        ['bob', d.data.id, { question: 'Mine?', options: ['A', 'B'] }, 400, 'draft'],
        ['alice', open.data.id, { question: 'Q', options: ['A', 'B'] }, 400, 'poll'],
        ['alice', 999999, { question: 'Q', options: ['A', 'B'] }, 404, 'poll'],
        ['alice', d.data.id, { question: '  ', options: ['A', 'B'] }, 400, 'question'],
        ['alice', d.data.id, { question: 'Q', options: ['A'] }, 400, 'options'],
        ['alice', d.data.id, { question: 'Q', options: ['A', 'B'], maxVotes: -1 }, 400, 'maxVotes'],
        ['alice', 'x', { question: 'Q', options: ['A', 'B'] }, 400, 'poll'],
        ['dave', d.data.id, { question: 'Q', options: ['A', 'B'] }, 404, 'room'],
      ];
      for (const [who, id, body, status, error] of refused) {
        const r = await edit(who, id, body);
        assert.deepEqual([r.status, r.data.error], [status, error], `${who} ${id} ${JSON.stringify(body)}`);
      }
      const one = await t.call('POST', '/apps/spreed/api/v4/room', { as: as('alice'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'carol' } });
      const wrongRoom = await t.call('POST', `${V1}/poll/${one.data.token}/draft/${d.data.id}`, {
        as: as('alice'),
        body: { question: 'Q', options: ['A', 'B'] },
      });
      assert.deepEqual([wrongRoom.status, wrongRoom.data.error], [400, 'room'], 'polls only in group and public conversations');
      await setRoom(t.p, room.token, { read_only: 1 });
      const locked = await edit('alice', d.data.id, { question: 'Q', options: ['A', 'B'] });
      assert.deepEqual([locked.status, locked.data.error], [403, 'readOnly']);
      await setRoom(t.p, room.token, { read_only: 0 });
      assert.equal((await show('alice', d.data.id)).data.question, 'Offsite in summer?', 'the refusals changed nothing');

      const gone = await close('bob', d.data.id);
      assert.deepEqual([gone.status, gone.data.error], [404, 'poll'], 'only moderators delete a draft');
      // Guest moderators read drafts but do not delete them (Talk: logged-in moderators only).
      const publicRoom = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Open drafts' });
      const guestDraft = await create('alice', { question: 'Guests?', options: ['A', 'B'], draft: true }, publicRoom.token);
      const guestMod = await joinGuest(t.p, publicRoom.token, ParticipantType.GUEST_MODERATOR);
      const asGuest = (method: string) => t.call(method, `${V1}/poll/${publicRoom.token}/${guestDraft.data.id}`, { as: guestMod.caller });
      assert.equal((await asGuest('GET')).data.status, 2);
      assert.deepEqual([(await asGuest('DELETE')).status, (await asGuest('DELETE')).data.error], [404, 'poll']);
      assert.equal((await asGuest('GET')).status, 200, 'still there');
      const del = await close('alice', d.data.id);
      assert.equal(del.status, 202, del.text);
      assert.equal(del.data, null);
      assert.equal((await close('alice', d.data.id)).status, 404);
      assert.deepEqual(
        (await drafts('alice')).data.map((p: any) => p.id),
        [second.data.id],
      );
      assert.equal((await history()).length, before + 1, 'only the open poll was posted');
    });

    it('capabilities talk-polls, talk-polls-drafts and edit-draft-poll are advertised', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      for (const f of ['talk-polls', 'talk-polls-drafts', 'edit-draft-poll']) assert.ok(r.data.capabilities.spreed.features.includes(f), f);
    });
  });
}
