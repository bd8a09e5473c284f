/**
 * Finding people as Talk's apps do: `GET /core/autocomplete/get` (Nextcloud's shape, exact
 * matches first per share type, Talk's filters for itemType=call: allowed groups and current
 * participants) and `GET /cloud/users/details`; bad input; a query count that does not grow with
 * the number of users.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, dialects, type Caller } from './helpers/parley.js';
import { countQueries, NO_THROTTLE } from './helpers/rooms.js';
import { ActorType, ParticipantType, RoomType, useParley, V4 } from './helpers/fixtures.js';

const AC = '/core/autocomplete/get';

for (const dialect of dialects()) {
  describe(`finding people [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['me'] });
    const find = (query: Record<string, string | number>, who: Caller = as('me'), format: 'json' | 'xml' = 'json') =>
      t.call('GET', `${AC}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`, { as: who, format });
    const ids = (r: { data: any[] }) => r.data.map((e) => `${e.source}:${e.id}`);

    before(async () => {
      const d = t.services.directory;
      await t.newUser('anna', { displayName: 'Anna Bell', email: 'anna@example.test' });
      await t.newUser('zanna', { displayName: 'Annabel Zed' });
      await t.newUser('bobby', { displayName: 'Bob Annason' });
      await t.newUser('carl', { displayName: 'Anna Carl' });
      await d.setEnabled('carl', false);
      await t.newUser('dora', { displayName: 'Dora' });
      await d.createGroup('anna-fans', 'Anna fans');
      await d.createGroup('annals', 'Annals');
      await d.createGroup('staff', 'Staff');
      await d.addToGroup('staff', 'anna');
      await d.addToGroup('staff', 'me');
      await t.services.teams.create('annateam', 'Team Anna');
      await t.services.teams.addMember('annateam', 'me');
      await t.services.teams.create('otherteam', 'Anna elsewhere');
      const status = await t.call('PUT', '/ocs/v2.php/apps/user_status/api/v1/user_status/message/custom', {
        as: as('anna'),
        body: { message: 'At lunch', statusIcon: '🍕' },
      });
      assert.equal(status.status, 200, status.text);
    });

    it("users: Nextcloud's shape, exact match first, then by name; disabled users and the caller left out", async () => {
      const r = await find({ search: 'anna', itemType: 'call', itemId: 'new', 'shareTypes[]': 0 });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(ids(r), ['users:anna', 'users:zanna', 'users:bobby']);
      const [anna, zanna] = r.data;
      assert.deepEqual(
        { ...anna, status: { ...anna.status } },
        {
          id: 'anna',
          label: 'Anna Bell',
          icon: 'icon-user',
          source: 'users',
          status: { status: anna.status.status, message: 'At lunch', icon: '🍕', clearAt: null },
          subline: 'At lunch',
          shareWithDisplayNameUnique: 'anna@example.test',
        },
      );
      assert.deepEqual(zanna, {
        id: 'zanna',
        label: 'Annabel Zed',
        icon: 'icon-user',
        source: 'users',
        status: '',
        subline: '',
        shareWithDisplayNameUnique: 'zanna',
      });
      // An exact display name or e-mail is exact too; limit bounds the page.
      assert.deepEqual(ids(await find({ search: 'Bob Annason' })), ['users:bobby']);
      assert.deepEqual(ids(await find({ search: 'anna@example.test' })), ['users:anna']);
      assert.equal((await find({ search: 'anna', limit: 1 })).data.length, 1);
      // The caller is left out of the list, as UserPlugin's takeOutCurrentUser does.
      assert.ok(!ids(await find({ search: '' })).includes('users:me'));
    });

    it('share types in the order asked for, each with its exact matches first (groups, teams, e-mail)', async () => {
      const r = await t.call('GET', `${AC}?search=annals&shareTypes[]=1&shareTypes[]=7&shareTypes[]=4&shareTypes[]=0`, { as: as('me') });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(ids(r), ['groups:annals']);
      const wide = await t.call('GET', `${AC}?search=anna&shareTypes[]=7&shareTypes[]=1`, { as: as('me') });
      assert.deepEqual(ids(wide), ['circles:annateam', 'groups:anna-fans', 'groups:annals'], 'only teams the caller is in');
      assert.deepEqual(wide.data[0], {
        id: 'annateam',
        label: 'Team Anna',
        icon: '',
        source: 'circles',
        status: '',
        subline: '',
        shareWithDisplayNameUnique: '',
      });
      const exactGroup = await t.call('GET', `${AC}?search=Anna%20fans&shareTypes[]=1`, { as: as('me') });
      assert.deepEqual(ids(exactGroup), ['groups:anna-fans']);
      const mail = await t.call('GET', `${AC}?search=new.person%40example.org&shareTypes[]=4&shareTypes[]=0`, { as: as('me') });
      assert.deepEqual(ids(mail), ['emails:new.person@example.org']);
      assert.equal(mail.data[0].label, 'new.person@example.org');
    });

    it('itemType=call with a conversation: its participants are left out (self-joined users stay); outsiders see everyone', async () => {
      const room = await t.newRoom('me', { type: RoomType.PUBLIC, members: { anna: ParticipantType.USER, zanna: ParticipantType.USER_SELF_JOINED } });
      await t.services.repos.attendees.insertIgnoringDuplicates([
        {
          room_id: (await t.services.repos.rooms.findByToken(room.token))!.id,
          actor_type: ActorType.GROUPS,
          actor_id: 'anna-fans',
          display_name: 'Anna fans',
          participant_type: ParticipantType.USER,
        } as any,
      ]);
      const q = { search: 'anna', itemType: 'call', itemId: room.token };
      const r = await t.call('GET', `${AC}?${new URLSearchParams(q)}&shareTypes[]=0&shareTypes[]=1`, { as: as('me') });
      assert.deepEqual(ids(r), ['users:zanna', 'users:bobby', 'groups:annals']);
      // Another item type is not Talk's: nothing filtered.
      const other = await t.call('GET', `${AC}?search=anna&itemType=file&itemId=${room.token}&shareTypes[]=0`, { as: as('me') });
      assert.deepEqual(ids(other), ['users:anna', 'users:zanna', 'users:bobby']);
      // dora is not in the conversation: its participants are not hidden from her.
      const outsider = await t.call('GET', `${AC}?${new URLSearchParams(q)}&shareTypes[]=0`, { as: as('dora') });
      assert.deepEqual(ids(outsider), ['users:anna', 'users:zanna', 'users:bobby']);
    });

    it('itemType=call with allowed_groups: only users and groups that may use Talk', async () => {
      await t.services.appConfig.set('allowed_groups', '["staff","annals"]');
      try {
        const r = await t.call('GET', `${AC}?search=anna&itemType=call&itemId=new&shareTypes[]=0&shareTypes[]=1`, { as: as('me') });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(ids(r), ['users:anna', 'groups:annals']);
      } finally {
        await t.services.appConfig.set('allowed_groups', '[]');
      }
    });

    it('bad input is 400 naming the field (JSON and XML); no login is 401', async () => {
      const cases: Array<[string, string]> = [
        ['limit=0', 'limit'],
        ['limit=201', 'limit'],
        ['limit=x', 'limit'],
        ['offset=-1', 'offset'],
        ['shareTypes[]=-1', 'shareTypes'],
        ['shareTypes[]=a', 'shareTypes'],
        [`search=${'a'.repeat(256)}`, 'search'],
        ['search=an%00na', 'search'],
        ['itemId=x%00', 'itemId'],
      ];
      for (const [query, field] of cases) {
        const r = await t.call('GET', `${AC}?${query}`, { as: as('me') });
        assert.deepEqual([r.status, r.data?.error], [400, field], query);
        const xml = await t.call('GET', `${AC}?${query}`, { as: as('me'), format: 'xml' });
        assert.equal(xml.status, 400, query);
        assert.match(xml.text, new RegExp(`<error>${field}</error>`));
      }
      const ok = await t.call('GET', `${AC}?search=anna`, { as: as('me'), format: 'xml' });
      assert.equal(ok.status, 200);
      assert.match(ok.text, /<id>anna<\/id>/);
      assert.match(ok.text, /<source>users<\/source>/);
      assert.equal((await t.call('GET', `${AC}?search=anna`)).status, 401);
    });

    it('the number of queries does not grow with the number of users', async () => {
      const measure = () => countQueries(t.p, async () => assert.equal((await find({ search: 'crowd', limit: 5, 'shareTypes[]': 0 })).status, 200));
      for (let i = 0; i < 6; i++) await t.newUser(`crowd${i}`);
      // The first request after writes also reads what the writes changed (caches): not counted.
      await measure();
      const few = await measure();
      for (let i = 6; i < 40; i++) await t.newUser(`crowd${i}`);
      // The first request after writes also reads what the writes changed (caches): not counted.
      await measure();
      const many = await measure();
      assert.equal(many, few);
    });

    it('GET /cloud/users/details: admins get the matching records keyed by id; other users none', async () => {
      const r = await t.call('GET', '/cloud/users/details', { as: admin, query: { search: 'anna' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.data.users).sort(), ['anna', 'bobby', 'carl', 'zanna']);
      assert.equal(r.data.users.anna.displayname, 'Anna Bell');
      assert.deepEqual(r.data.users.anna.groups, ['staff']);
      assert.equal(r.data.users.carl.enabled, false);
      const limited = await t.call('GET', '/cloud/users/details', { as: admin, query: { search: 'anna', limit: 1 } });
      assert.equal(Object.keys(limited.data.users).length, 1);
      const mine = await t.call('GET', '/cloud/users/details', { as: as('me'), query: { search: 'anna' } });
      assert.equal(mine.status, 200);
      assert.deepEqual(mine.data, { users: [] });
      const xml = await t.call('GET', '/cloud/users/details', { as: admin, query: { search: 'zanna' }, format: 'xml' });
      assert.equal(xml.status, 200);
      assert.match(xml.text, /<displayname>Annabel Zed<\/displayname>/);
      const bad = await t.call('GET', '/cloud/users/details', { as: admin, query: { search: 'a'.repeat(256) } });
      assert.equal(bad.status, 400);
      // The single-user route still answers for a user called "details"'s neighbours.
      assert.equal((await t.call('GET', '/cloud/users/anna', { as: admin })).status, 200);
    });

    it('sorter=talk_chat_participants with itemType=chat: who wrote last in the conversation comes first (only for its participants)', async () => {
      const room = await t.newRoom('me', { type: RoomType.GROUP, members: ['anna', 'zanna', 'bobby'] });
      const roomId = room.record.id;
      for (const [who, text] of [
        ['bobby', 'first'],
        ['zanna', 'second'],
      ]) {
        const sent = await t.call('POST', `/apps/spreed/api/v1/chat/${room.token}`, { as: as(who), body: { message: text } });
        assert.equal(sent.status, 201, sent.text);
      }
      const q = (who: string, extra: Record<string, string | number>) => find({ search: 'anna', 'shareTypes[]': 0, ...extra }, as(who));
      // Unsorted: exact match, then by name (anna, zanna, bobby); sorted: zanna wrote last, then bobby, then anna who never wrote.
      assert.deepEqual(ids(await q('me', { itemType: 'chat', itemId: roomId })), ['users:anna', 'users:zanna', 'users:bobby']);
      assert.deepEqual(ids(await q('me', { itemType: 'chat', itemId: roomId, sorter: 'talk_chat_participants' })), [
        'users:zanna',
        'users:bobby',
        'users:anna',
      ]);
      assert.deepEqual(ids(await q('me', { itemType: 'chat', itemId: roomId, sorter: 'commenters|talk_chat_participants' })), [
        'users:zanna',
        'users:bobby',
        'users:anna',
      ]);
      // Not a participant (dora), or not a chat id: the order is left as it was.
      assert.deepEqual(ids(await q('dora', { itemType: 'chat', itemId: roomId, sorter: 'talk_chat_participants' })), [
        'users:anna',
        'users:zanna',
        'users:bobby',
      ]);
      assert.deepEqual(ids(await q('me', { itemType: 'call', itemId: room.token, sorter: 'talk_chat_participants' })), []);
      assert.deepEqual(ids(await q('me', { itemType: 'chat', itemId: 'x', sorter: 'talk_chat_participants' })), ['users:anna', 'users:zanna', 'users:bobby']);
    });

    it('a full page carries a Link header to the next page (offset moved on by limit); the last page none', async () => {
      const first = await find({ search: 'anna', itemType: 'call', itemId: 'new', 'shareTypes[]': 0, limit: 2 });
      assert.equal(first.status, 200, first.text);
      const link = first.headers.get('link');
      assert.ok(link, 'a full page links the next');
      const m = /^<([^>]+)>; rel="next"$/.exec(link!);
      assert.ok(m, link!);
      const next = new URL(m![1]);
      assert.equal(next.pathname, '/ocs/v2.php/core/autocomplete/get');
      assert.deepEqual(Object.fromEntries(next.searchParams), {
        search: 'anna',
        itemType: 'call',
        itemId: 'new',
        'shareTypes[0]': '0',
        limit: '2',
        offset: '2',
      });
      // Following the links walks every match once; the page that is not full links nothing.
      const seen = ids(first);
      let url: string | null = `${next.pathname}${next.search}`;
      for (let pages = 0; url !== null; pages++) {
        assert.ok(pages < 5, 'the links end');
        const page = await t.call('GET', url.replace('/ocs/v2.php', ''), { as: as('me') });
        assert.equal(page.status, 200, page.text);
        seen.push(...ids(page));
        const more = page.headers.get('link');
        url = more === null ? null : new URL(/^<([^>]+)>/.exec(more)![1]).pathname + new URL(/^<([^>]+)>/.exec(more)![1]).search;
      }
      assert.deepEqual(seen.sort(), ['users:anna', 'users:bobby', 'users:zanna']);
      assert.equal((await find({ search: 'anna', limit: 50 })).headers.get('link'), null);
    });

    it('itemType=call: the room lookup is a conversation the caller is in, by token', async () => {
      const one = await t.call('POST', `${V4}/room`, { as: as('me'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'dora' } });
      assert.ok(one.status === 200 || one.status === 201, one.text);
      const r = await t.call('GET', `${AC}?search=dora&itemType=call&itemId=${one.data.token}&shareTypes[]=0`, { as: as('me') });
      assert.deepEqual(ids(r), []);
    });
  });
}
