/**
 * Participant endpoints (contract "Participants"): list, add, remove, leave, moderators,
 * permissions, invitations, guest names; who may do what; bad input; query counts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, passwordOf, startParley, type Caller, type Parley } from './helpers/parley.js';
import { attendeesOf, cookieOf, countQueries, createRoom, NO_THROTTLE, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { startSmtp, type SmtpSink } from './helpers/smtp.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

async function joinAs(p: Parley, token: string, who: Caller): Promise<Caller> {
  const r = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: who });
  assert.equal(r.status, 200, r.text);
  return { ...who, headers: { ...(who.headers ?? {}), Cookie: cookieOf(r) } };
}

async function list(p: Parley, token: string, who: Caller = as('owner')): Promise<any[]> {
  const r = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: who });
  assert.equal(r.status, 200, r.text);
  return r.data;
}

const idOf = (rows: any[], actorId: string) => rows.find((r) => r.actorId === actorId)?.attendeeId;

for (const dialect of dialects()) {
  describe(`participants [${dialect}]`, () => {
    let p: Parley;
    let smtp: SmtpSink;
    before(async () => {
      smtp = await startSmtp();
      p = await startParley(dialect, { env: { ...NO_THROTTLE, SMTP_URL: smtp.url, BASE_URL: 'https://talk.example.org' } });
      for (const u of ['owner', 'mod', 'user', 'selfj', 'outsider', 'extra', 'g1', 'g2']) await createUser(p, u);
      await p.services.directory.createGroup('crew');
      await p.services.directory.addToGroup('crew', 'g1');
      await p.services.directory.addToGroup('crew', 'g2');
    });
    after(async () => {
      p.services.mail.close();
      await p.close();
      await smtp.close();
    });

    it('the participant record has every field, in Talk order', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Fields' });
      const rows = await list(p, room.token);
      assert.deepEqual(Object.keys(rows[0]), [
        'roomToken',
        'inCall',
        'lastPing',
        'sessionIds',
        'participantType',
        'attendeeId',
        'actorId',
        'actorType',
        'displayName',
        'permissions',
        'attendeePermissions',
        'attendeePin',
        'phoneNumber',
        'callId',
      ]);
      assert.equal(rows[0].roomToken, room.token);
      assert.equal(rows[0].participantType, ParticipantType.OWNER);
      assert.equal(rows[0].permissions, 254);
    });

    it('the JSON list is byte for byte JSON.stringify of the presenter records (users, groups, guests, e-mails, sessions, calls, statuses)', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Bytes' });
      for (const body of [
        { newParticipant: 'user' },
        { newParticipant: 'crew', source: 'groups' },
        { newParticipant: 'bytes@example.com', source: 'emails' },
      ]) {
        const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body });
        assert.equal(r.status, 200, r.text);
      }
      const row = (await roomRow(p, room.token))!;
      // Names that leave the ASCII fast path: escapes, control characters, non-ASCII.
      for (const [i, displayName] of ['Zoë "quoted" \\ back\u0001slash', '😀 emoji\u2028line', 'plain', ''].entries()) {
        const a = await p.services.rooms.addAttendee(row.id, {
          actorType: 'guests',
          actorId: `bytes-g${i}`,
          displayName,
          participantType: ParticipantType.GUEST_MODERATOR,
        });
        await p.services.db.kysely
          .insertInto('sessions')
          .values({ attendee_id: a.id, session_id: `bytes-s${i}-${Date.now()}`, in_call: i % 2 ? 7 : 0, last_ping: Math.floor(Date.now() / 1000), state: 1 })
          .execute();
      }
      await joinAs(p, room.token, as('user'));
      await p.services.db.kysely.updateTable('sessions').set({ in_call: 3 }).where('session_id', 'like', 'bytes-s0-%').execute();
      await call(p, 'PUT', '/apps/user_status/api/v1/user_status/status', { as: as('user'), body: { statusType: 'away' } });

      const r = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner'), query: { includeStatus: 'true' } });
      assert.equal(r.status, 200, r.text);
      // What the list was before it was written as bytes: the presenter's records through JSON.stringify.
      const { RequestContext } = await import('../src/services/platform/request-context.js');
      const ctx = new RequestContext(p.services.directory, p.services.appConfig, (await p.services.directory.users.find('owner'))!, '127.0.0.1');
      const listed = await p.services.participants.list(ctx, room.token, { includeStatus: true, breakout: false });
      assert.equal(r.text, '{"ocs":{"meta":{"status":"ok","statuscode":200,"message":"OK"},"data":' + JSON.stringify(listed.records) + '}}');
      assert.deepEqual(r.data, JSON.parse(JSON.stringify(listed.records)));
      const kinds = new Set(r.data.map((x: any) => x.actorType));
      for (const k of ['users', 'groups', 'guests', 'emails']) assert.ok(kinds.has(k), `a ${k} record`);
      const user = r.data.find((x: any) => x.actorId === 'user');
      assert.equal(user.status, 'away');
      assert.equal(user.sessionIds.length, 1);
      assert.ok(r.data.some((x: any) => x.inCall === 3));
      assert.ok(r.data.some((x: any) => x.displayName === 'Zoë "quoted" \\ back\u0001slash'));

      // XML is rendered from the same records (not the JSON writer): one <element> per record,
      // fields in the same order, v1 and v2.
      for (const version of [1, 2] as const) {
        const xml = await call(p, 'GET', `${V4}/room/${room.token}/participants`, {
          as: as('owner'),
          query: { includeStatus: 'true' },
          format: 'xml',
          version,
        });
        assert.equal(xml.status, 200, xml.text);
        assert.match(xml.headers.get('content-type') ?? '', /xml/);
        assert.equal(xml.text.match(/<element>\n\s+<roomToken>/g)?.length, listed.records.length);
        assert.match(xml.text, new RegExp(`<roomToken>${room.token}</roomToken>\\n\\s+<inCall>\\d+</inCall>\\n\\s+<lastPing>`));
        assert.match(xml.text, /<actorType>emails<\/actorType>/);
        assert.match(xml.text, /<status>away<\/status>/);
        assert.doesNotMatch(xml.text, /<records>|<write>/, 'the list, not its wrapper');
      }
    });

    it('a user without a display name is listed by id, as Nextcloud shows them', async () => {
      await p.services.directory.createUser({ id: 'nameless', password: passwordOf('nameless'), displayName: '' });
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Nameless' });
      await seedUser(p, room.token, 'nameless');
      const r = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.find((x: any) => x.actorId === 'nameless').displayName, 'nameless');
    });

    it('a change to a conversation deleted since it was read is 404 room, and writes nothing', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Gone' });
      const id = (await roomRow(p, room.token))!.id;
      assert.equal((await call(p, 'DELETE', `${V4}/room/${room.token}`, { as: as('owner') })).status, 200);
      let ran = false;
      await assert.rejects(
        p.services.rooms.lockedTransaction(id, async () => {
          ran = true;
        }),
        (e: any) => e.status === 404 && e.data?.error === 'room',
      );
      assert.equal(ran, false, 'nothing ran under a lock that locked nothing');
    });

    it('add users: 200 [], listed as type 3, lastActivity moves; adding again changes nothing', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Add users' });
      const before = (await roomRow(p, room.token))!.last_activity;
      await new Promise((r) => setTimeout(r, 1100));
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'user' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.data, []);
      const rows = await list(p, room.token);
      const u = rows.find((x) => x.actorId === 'user');
      assert.equal(u.participantType, ParticipantType.USER);
      assert.equal(u.displayName, 'user');
      assert.ok((await roomRow(p, room.token))!.last_activity > before);
      const again = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'user', source: 'users' } });
      assert.equal(again.status, 200);
      assert.equal((await attendeesOf(p, room.token)).length, 2);
    });

    it("new attendee rows take each user's read_status_privacy (creation, one-to-one, group invite, added group)", async () => {
      for (const u of ['rp1', 'rp2', 'rp3']) await createUser(p, u);
      await p.services.directory.createGroup('readers');
      await p.services.directory.addToGroup('readers', 'rp2');
      await p.services.directory.addToGroup('readers', 'rp3');
      for (const u of ['rp1', 'rp3']) {
        const r = await call(p, 'POST', '/apps/spreed/api/v1/settings/user', { as: as(u), body: { key: 'read_status_privacy', value: '1' } });
        assert.equal(r.status, 200, r.text);
      }
      const privacyOf = async (token: string) =>
        Object.fromEntries((await attendeesOf(p, token)).filter((a) => a.actor_type === 'users').map((a) => [a.actor_id, a.read_privacy]));
      const own = await createRoom(p, 'rp1', { roomType: RoomType.GROUP, roomName: 'Private reader' });
      assert.deepEqual(await privacyOf(own.token), { rp1: 1 });
      const direct = await createRoom(p, 'rp1', { roomType: RoomType.ONE_TO_ONE, invite: 'rp3' });
      assert.deepEqual(await privacyOf(direct.token), { rp1: 1, rp3: 1 });
      const invited = await createRoom(p, 'rp2', { roomType: RoomType.GROUP, invite: 'readers', source: 'groups' });
      assert.deepEqual(await privacyOf(invited.token), { rp2: 0, rp3: 1 });
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Readers' });
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'readers', source: 'groups' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(await privacyOf(room.token), { owner: 0, rp2: 0, rp3: 1 });
    });

    it('add a group: the group and its members; later membership changes follow', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Group room' });
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'crew', source: 'groups' } });
      assert.equal(r.status, 200, r.text);
      let rows = await list(p, room.token);
      assert.ok(rows.some((x) => x.actorType === 'groups' && x.actorId === 'crew'));
      assert.ok(rows.some((x) => x.actorId === 'g1') && rows.some((x) => x.actorId === 'g2'));
      await p.services.directory.addToGroup('crew', 'extra');
      rows = await list(p, room.token);
      assert.ok(
        rows.some((x) => x.actorId === 'extra'),
        'a new group member joins the conversation',
      );
      await p.services.directory.removeFromGroup('crew', 'extra');
      rows = await list(p, room.token);
      assert.ok(!rows.some((x) => x.actorId === 'extra'), 'a removed member leaves');
      // Removing the group attendee takes along the members it brought.
      const del = await call(p, 'DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: idOf(rows, 'crew') } });
      assert.equal(del.status, 200, del.text);
      assert.deepEqual(
        (await attendeesOf(p, room.token)).map((a) => a.actor_id),
        ['owner'],
      );
    });

    it('add a team (source circles): the team and its members; only members may add it', async () => {
      await p.services.teams.create('designers', 'Designers');
      await p.services.teams.addMember('designers', 'owner');
      await p.services.teams.addMember('designers', 'g1');
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Team room' });
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'designers', source: 'circles' } });
      assert.equal(r.status, 200, r.text);
      const rows = await list(p, room.token);
      assert.ok(rows.some((x) => x.actorType === 'circles' && x.displayName === 'Designers'));
      assert.ok(rows.some((x) => x.actorId === 'g1'));
      await p.services.teams.addMember('designers', 'g2');
      assert.ok(
        (await list(p, room.token)).some((x) => x.actorId === 'g2'),
        'team changes follow',
      );
      const other = await createRoom(p, 'mod', { roomType: RoomType.GROUP, roomName: 'Not a member' });
      const no = await call(p, 'POST', `${V4}/room/${other.token}/participants`, { as: as('mod'), body: { newParticipant: 'designers', source: 'circles' } });
      assert.equal(no.status, 404);
      assert.equal(no.data.error, 'new-participant');
    });

    it('add an e-mail guest: the group room becomes public ({type: 3}) and an invitation arrives', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Mail room' });
      const before = smtp.messages.length;
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, {
        as: as('owner'),
        body: { newParticipant: 'Guest@Example.com', source: 'emails' },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.data, { type: RoomType.PUBLIC });
      assert.equal((await roomRow(p, room.token))!.type, RoomType.PUBLIC);
      const mails = await smtp.waitFor(before + 1);
      const m = mails[before];
      assert.deepEqual(
        m.to.map((x) => x.toLowerCase()),
        ['guest@example.com'],
      );
      assert.ok(m.text.includes(`https://talk.example.org/call/${room.token}`), m.text);
      const rows = await list(p, room.token);
      const e = rows.find((x) => x.actorType === 'emails');
      assert.equal(e.invitedActorId, 'Guest@Example.com');
      assert.equal(e.participantType, ParticipantType.GUEST);
      const second = await call(p, 'POST', `${V4}/room/${room.token}/participants`, {
        as: as('owner'),
        body: { newParticipant: 'other@example.com', source: 'emails' },
      });
      assert.deepEqual(second.data, [], 'already public: no type');
      const resend = await call(p, 'POST', `${V4}/room/${room.token}/participants/resend-invitations`, { as: as('owner') });
      assert.equal(resend.status, 200);
      await smtp.waitFor(before + 4);
      const one = await call(p, 'POST', `${V4}/room/${room.token}/participants/resend-invitations`, { as: as('owner'), body: { attendeeId: e.attendeeId } });
      assert.equal(one.status, 200);
      await smtp.waitFor(before + 5);
      const missing = await call(p, 'POST', `${V4}/room/${room.token}/participants/resend-invitations`, { as: as('owner'), body: { attendeeId: 999999 } });
      assert.deepEqual([missing.status, missing.data.error], [404, 'participant']);
    });

    it("with SIP dial-in on, an e-mail invitation carries the guest's PIN and the dial-in info", async () => {
      const dialIn = 'Call +49 30 1234567 and enter the PIN';
      await p.services.appConfig.setMany([
        { key: 'sip_bridge_shared_secret', value: 'bridge-secret-for-mail-test' },
        { key: 'sip_bridge_dialin_info', value: dialIn },
      ]);
      try {
        const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Dial-in room' });
        await p.services.repos.rooms.update((await roomRow(p, room.token))!.id, { sip_enabled: 1 });
        const before = smtp.messages.length;
        const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, {
          as: as('owner'),
          body: { newParticipant: 'dialer@example.com', source: 'emails' },
        });
        assert.equal(r.status, 200, r.text);
        const mails = await smtp.waitFor(before + 1);
        const m = mails[before];
        assert.deepEqual(
          m.to.map((x) => x.toLowerCase()),
          ['dialer@example.com'],
        );
        assert.ok(m.text.includes(`https://talk.example.org/call/${room.token}`), m.text);
        const pin = (await attendeesOf(p, room.token)).find((a) => a.actor_type === 'emails')?.pin;
        assert.match(pin ?? '', /^[1-9]\d{6}$/, 'a 7-digit PIN was generated');
        assert.ok(m.text.includes(pin!), `the mail shows the PIN: ${m.text}`);
        assert.ok(m.text.includes(dialIn), 'the mail shows the dial-in info');
        // Without SIP on the conversation, the invitation has no PIN.
        const plain = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'No dial-in' });
        await call(p, 'POST', `${V4}/room/${plain.token}/participants`, { as: as('owner'), body: { newParticipant: 'plain@example.com', source: 'emails' } });
        const next = (await smtp.waitFor(before + 2))[before + 1];
        assert.equal((await attendeesOf(p, plain.token)).find((a) => a.actor_type === 'emails')?.pin ?? null, null);
        assert.ok(!next.text.includes(dialIn), 'no dial-in info without SIP');
      } finally {
        await p.services.appConfig.setMany([
          { key: 'sip_bridge_shared_secret', value: undefined },
          { key: 'sip_bridge_dialin_info', value: undefined },
        ]);
      }
    });

    it('add: 400 one-to-one, 400 unknown source, 404 unknown user/group, 400 bad e-mail; nothing changes', async () => {
      const one = await call(p, 'POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'user' } });
      const r1 = await call(p, 'POST', `${V4}/room/${one.data.token}/participants`, { as: as('owner'), body: { newParticipant: 'extra' } });
      assert.equal(r1.status, 400);
      assert.equal(r1.data.error, 'room-type');
      // A conversation for a password-protected share (video verification) takes nobody else either.
      const share = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Share' });
      await setRoom(p, share.token, { object_type: 'share:password', object_id: 'abc' });
      const r2 = await call(p, 'POST', `${V4}/room/${share.token}/participants`, { as: as('owner'), body: { newParticipant: 'extra' } });
      assert.deepEqual([r2.status, r2.data.error], [400, 'room-type']);
      assert.equal((await attendeesOf(p, share.token)).length, 1);
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Bad adds' });
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ newParticipant: 'extra', source: 'bots' }, 400, 'source'],
        [{ newParticipant: 'nobody' }, 404, 'new-participant'],
        [{ newParticipant: 'nogroup', source: 'groups' }, 404, 'new-participant'],
        [{ newParticipant: 'noteam', source: 'circles' }, 404, 'new-participant'],
        [{ newParticipant: 'not-an-address', source: 'emails' }, 400, 'email'],
        [{}, 400, 'newParticipant'],
        [{ newParticipant: ['extra'] }, 400, 'newParticipant'],
        [{ newParticipant: 'x'.repeat(300) }, 400, 'newParticipant'],
        [{ newParticipant: 'extra', source: 5 }, 400, 'source'],
      ];
      for (const [body, status, error] of cases) {
        const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body });
        assert.equal(r.status, status, JSON.stringify(body));
        assert.equal(r.data.error, error, JSON.stringify(body));
      }
      assert.equal((await attendeesOf(p, room.token)).length, 1);
      assert.equal((await roomRow(p, room.token))!.type, RoomType.GROUP);
    });

    it('remove: moderators 400, owner 403, unknown 404, users 200 with their sessions', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Removal' });
      await seedUser(p, room.token, 'mod', ParticipantType.MODERATOR);
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      await joinAs(p, room.token, as('user'));
      const rows = await list(p, room.token);
      const del = (who: string, attendeeId: unknown) => call(p, 'DELETE', `${V4}/room/${room.token}/attendees`, { as: as(who), body: { attendeeId } });
      let r = await del('owner', idOf(rows, 'mod'));
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'moderator');
      r = await del('mod', idOf(rows, 'owner'));
      assert.equal(r.status, 403);
      assert.equal(r.data.error, 'owner');
      r = await del('owner', 999999);
      assert.equal(r.status, 404);
      r = await del('owner', 'abc');
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'attendeeId');
      assert.equal((await attendeesOf(p, room.token)).length, 3);
      r = await del('mod', idOf(rows, 'user'));
      assert.equal(r.status, 200);
      assert.deepEqual((await attendeesOf(p, room.token)).map((a) => a.actor_id).sort(), ['mod', 'owner']);
      const sessions = await p.services.db.kysely.selectFrom('sessions').select('id').where('attendee_id', '=', idOf(rows, 'user')).execute();
      assert.equal(sessions.length, 0);
    });

    it('leave for good: the only moderator 400 last-moderator, others 200, the last user deletes the room', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Leaving' });
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      const self = (who: string) => call(p, 'DELETE', `${V4}/room/${room.token}/participants/self`, { as: as(who) });
      let r = await self('owner');
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'last-moderator');
      r = await self('user');
      assert.equal(r.status, 200);
      r = await self('outsider');
      assert.equal(r.status, 404);
      r = await self('owner');
      assert.equal(r.status, 200);
      assert.equal(await roomRow(p, room.token), undefined, 'the last user deleted the conversation');
      // Contract: 404 for whoever the conversation is not found for, anonymous callers included.
      const anon = await call(p, 'DELETE', `${V4}/room/${room.token}/participants/self`);
      assert.deepEqual([anon.status, anon.data.error], [404, 'room']);
    });

    it('moderators: the state table (3→2, 2→3), 400 for no-ops, groups and owners, 403 for self', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Roles' });
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      const crew = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'crew', source: 'groups' } });
      assert.equal(crew.status, 200, crew.text);
      const rows = await list(p, room.token);
      const mod = (method: string, who: string, attendeeId: unknown) =>
        call(p, method, `${V4}/room/${room.token}/moderators`, { as: as(who), body: { attendeeId } });
      /** [status, data.error]: a refusal for the reason named, not for a missing attendee id. */
      const outcome = async (method: string, who: string, attendeeId: unknown) => {
        const r = await mod(method, who, attendeeId);
        return [r.status, r.data?.error];
      };
      const type = async (actorId: string) => (await attendeesOf(p, room.token)).find((a) => a.actor_id === actorId)!.participant_type;
      assert.equal((await mod('POST', 'owner', idOf(rows, 'user'))).status, 200);
      assert.equal(await type('user'), 2);
      assert.deepEqual(await outcome('POST', 'owner', idOf(rows, 'user')), [400, 'type'], 'already a moderator');
      assert.deepEqual(await outcome('DELETE', 'user', idOf(rows, 'user')), [403, 'self']);
      assert.deepEqual(await outcome('POST', 'owner', idOf(rows, 'owner')), [403, 'self']);
      // Talk's order: an owner is already a moderator, so the type check answers first.
      assert.deepEqual(await outcome('POST', 'user', idOf(rows, 'owner')), [400, 'type']);
      assert.deepEqual(await outcome('DELETE', 'user', idOf(rows, 'owner')), [400, 'type'], 'an owner is not demoted');
      assert.deepEqual(await outcome('POST', 'owner', idOf(rows, 'crew')), [400, 'type'], 'a group is no moderator');
      assert.equal((await mod('DELETE', 'owner', idOf(rows, 'user'))).status, 200);
      assert.equal(await type('user'), 3);
      assert.deepEqual(await outcome('DELETE', 'owner', idOf(rows, 'user')), [400, 'type'], 'already a user');
      assert.deepEqual(await outcome('POST', 'owner', 999999), [404, 'participant']);
    });

    it('permissions: set, add and remove with the contract seeds; Custom added; bad input 400', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Perms' });
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      await joinAs(p, room.token, as('selfj'));
      const crew = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'crew', source: 'groups' } });
      assert.equal(crew.status, 200, crew.text);
      const rows = await list(p, room.token);
      const put = (body: Record<string, unknown>) => call(p, 'PUT', `${V4}/room/${room.token}/attendees/permissions`, { as: as('owner'), body });
      const perms = async (actorId: string) => (await attendeesOf(p, room.token)).find((a) => a.actor_id === actorId)!;
      let r = await put({ attendeeId: idOf(rows, 'user'), method: 'add', permissions: 128 });
      assert.equal(r.status, 200, r.text);
      assert.equal((await perms('user')).permissions, 118 | 128 | 1, 'seeded from 118');
      r = await put({ attendeeId: idOf(rows, 'user'), method: 'remove', permissions: 16 });
      assert.equal((await perms('user')).permissions, (118 | 128 | 1) & ~16);
      r = await put({ attendeeId: idOf(rows, 'user'), method: 'set', permissions: 0 });
      assert.equal((await perms('user')).permissions, 0);
      r = await put({ attendeeId: idOf(rows, 'selfj'), method: 'set', permissions: 4 });
      assert.equal(r.data[0].attendeePermissions, 5);
      assert.equal((await perms('selfj')).participant_type, ParticipantType.USER, 'a self-joined user became permanent');
      const before = JSON.stringify(await attendeesOf(p, room.token));
      const bad: Array<[Record<string, unknown>, number, string]> = [
        [{ attendeeId: idOf(rows, 'user'), method: 'toggle', permissions: 4 }, 400, 'method'],
        [{ attendeeId: idOf(rows, 'user'), method: 'set', permissions: 512 }, 400, 'permissions'],
        [{ attendeeId: idOf(rows, 'owner'), method: 'set', permissions: 4 }, 403, 'moderator'],
        [{ attendeeId: idOf(rows, 'user'), method: 'set', permissions: -1 }, 400, 'permissions'],
        [{ attendeeId: idOf(rows, 'user'), method: 'set', permissions: 'all' }, 400, 'permissions'],
        [{ attendeeId: idOf(rows, 'user'), method: 'set' }, 400, 'permissions'],
        [{ method: 'set', permissions: 4 }, 400, 'attendeeId'],
        [{ attendeeId: 999999, method: 'set', permissions: 4 }, 404, 'participant'],
        [{ attendeeId: idOf(rows, 'crew'), method: 'set', permissions: 4 }, 400, 'type'],
      ];
      for (const [body, status, error] of bad) {
        const res = await put(body);
        assert.equal(res.status, status, JSON.stringify(body));
        assert.equal(res.data.error, error, JSON.stringify(body));
      }
      assert.equal(JSON.stringify(await attendeesOf(p, room.token)), before, 'nothing changed');
      const all = await call(p, 'PUT', `${V4}/room/${room.token}/attendees/permissions/all`, { as: as('owner'), body: { method: 'set', permissions: 4 } });
      assert.equal(all.status, 200);
      assert.equal(JSON.stringify(await attendeesOf(p, room.token)), before, 'the deprecated endpoint does nothing');
      const allBad = await call(p, 'PUT', `${V4}/room/${room.token}/attendees/permissions/all`, { as: as('owner'), body: { method: 'nope', permissions: 4 } });
      assert.equal(allBad.status, 400);
      const one = await call(p, 'POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'selfj' } });
      const oneRows = await list(p, one.data.token);
      const r1 = await call(p, 'PUT', `${V4}/room/${one.data.token}/attendees/permissions`, {
        as: as('owner'),
        body: { attendeeId: oneRows[1].attendeeId, method: 'set', permissions: 4 },
      });
      assert.equal(r1.status, 400);
      assert.equal(r1.data.error, 'room-type');
      const r2 = await call(p, 'PUT', `${V4}/room/${one.data.token}/attendees/permissions/all`, { as: as('owner'), body: { method: 'set', permissions: 4 } });
      assert.equal(r2.status, 400);
    });

    it('includeStatus adds statuses (and the header) below 100 rows only', async () => {
      await call(p, 'PUT', '/apps/user_status/api/v1/user_status/status', { as: as('user'), body: { statusType: 'dnd' } });
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Status' });
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      const r = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner'), query: { includeStatus: 'true' } });
      assert.equal(r.headers.get('x-nextcloud-has-user-statuses'), 'true');
      assert.equal(r.data.find((x: any) => x.actorId === 'user').status, 'dnd');
      assert.equal(r.data.find((x: any) => x.actorId === 'owner').status, 'offline');
      const bad = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner'), query: { includeStatus: 'maybe' } });
      assert.equal(bad.status, 400);
      const row = (await roomRow(p, room.token))!;
      for (let i = 0; i < 100; i++)
        await p.services.rooms.addAttendee(row.id, {
          actorType: 'guests',
          actorId: `g${i}`,
          displayName: `G${i}`,
          participantType: ParticipantType.GUEST_MODERATOR,
        });
      const big = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner'), query: { includeStatus: 'true' } });
      assert.equal(big.headers.get('x-nextcloud-has-user-statuses'), null);
      assert.equal(big.data.find((x: any) => x.actorId === 'user').status, undefined);
    });

    it('the list runs a constant number of queries whatever the size', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Counting' });
      const row = (await roomRow(p, room.token))!;
      await list(p, room.token);
      const small = await countQueries(p, () => list(p, room.token));
      for (let i = 0; i < 300; i++) {
        const a = await p.services.rooms.addAttendee(row.id, {
          actorType: i % 2 ? 'guests' : 'emails',
          actorId: `x${i}`,
          displayName: `X${i}`,
          participantType: ParticipantType.GUEST_MODERATOR,
        });
        if (i % 3 === 0)
          await p.services.db.kysely
            .insertInto('sessions')
            .values({ attendee_id: a.id, session_id: `s${i}-${Date.now()}`, in_call: 0, last_ping: Math.floor(Date.now() / 1000), state: 1 })
            .execute();
      }
      // Warm-up: caches of other areas reload once after writes; only steady state is compared.
      await list(p, room.token);
      const big = await countQueries(p, () => list(p, room.token));
      assert.equal(big, small);
      // The ceiling: the login's brute-force cap check, credentials, config generation, the room
      // with the caller's attendee row (one statement), the attendees with their sessions (one
      // statement), the users.
      assert.ok(big <= 6, `the participant list used ${big} queries`);
      // PostgreSQL: the credential and config generation come from the read cache
      // (docs/architecture.md "Read cache").
      if (dialect === 'postgres') assert.ok(big <= 4, `the participant list used ${big} queries on PostgreSQL`);
      assert.equal((await list(p, room.token)).length, 301);
    });

    it('a group of 1,500 members is added whole (more rows than one SQLite statement can bind)', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Crowd' });
      await p.services.directory.createGroup('crowd');
      // Accounts are written straight to the table: hashing 1,500 passwords would take minutes.
      for (let i = 0; i < 1500; i++) {
        await p.services.directory.users.insertWithGroups(
          { id: `crowd-${i}`, display_name: `Crowd ${i}`, email: '', enabled: 1, password_hash: 'x', created_at: 0, last_login: 0 },
          ['crowd'],
        );
      }
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('owner'), body: { newParticipant: 'crowd', source: 'groups' } });
      assert.equal(r.status, 200, r.text);
      const users = (await attendeesOf(p, room.token)).filter((a) => a.actor_type === 'users' && a.actor_id.startsWith('crowd-'));
      assert.equal(users.length, 1500);
    });

    it('lobby: 412 for non-moderators without the lobby-ignore bit', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Lobby' });
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      await p.services.repos.rooms.update((await roomRow(p, room.token))!.id, { lobby_state: 1 });
      const r = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('user') });
      assert.equal(r.status, 412);
      assert.equal((await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') })).status, 200);
    });

    it('guest name: 403 for users, 404 for non-participants, 400 for a bad name', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Names' });
      const name = (who: Caller, displayName: unknown) => call(p, 'POST', `/apps/spreed/api/v1/guest/${room.token}/name`, { as: who, body: { displayName } });
      assert.equal((await name(as('owner'), 'X')).status, 403);
      assert.equal((await name(as('outsider'), 'X')).status, 404);
      assert.equal((await name({}, 'X')).status, 404);
      const g = await joinAs(p, room.token, {});
      for (const bad of ['x'.repeat(256), 'bad\u0001name', ['x']]) {
        const r = await name(g, bad);
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'displayName');
      }
      assert.equal((await name(g, 'Ada')).status, 200);
      assert.ok((await list(p, room.token)).some((x) => x.displayName === 'Ada'));
    });

    it('who may do what: every caller kind against every participant endpoint', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Matrix' });
      await seedUser(p, room.token, 'mod', ParticipantType.MODERATOR);
      await seedUser(p, room.token, 'user', ParticipantType.USER);
      const selfj = await joinAs(p, room.token, as('selfj'));
      const guest = await joinAs(p, room.token, {});
      const gmod = await joinAs(p, room.token, {});
      const rows = await list(p, room.token);
      const guestIds = rows.filter((x) => x.actorType === 'guests').map((x) => x.attendeeId);
      const gm = { attendeeId: Math.max(...guestIds) };
      await call(p, 'POST', `${V4}/room/${room.token}/moderators`, { as: as('owner'), body: { attendeeId: gm.attendeeId } });
      const callers: Record<string, Caller> = {
        owner: as('owner'),
        mod: as('mod'),
        user: as('user'),
        selfj,
        guest,
        gmod,
        outsider: as('outsider'),
        anonymous: {},
      };
      const t = room.token;
      // Authorised callers reach the target lookup (404 participant) or succeed; others are stopped before it.
      const endpoints: Array<[string, string, string, Record<string, unknown>, Record<string, number>]> = [
        [
          'list',
          'GET',
          `${V4}/room/${t}/participants`,
          {},
          { owner: 200, mod: 200, user: 200, selfj: 200, guest: 403, gmod: 200, outsider: 404, anonymous: 404 },
        ],
        [
          'add',
          'POST',
          `${V4}/room/${t}/participants`,
          { newParticipant: 'nobody' },
          { owner: 404, mod: 404, user: 403, selfj: 403, guest: 403, gmod: 403, outsider: 404, anonymous: 404 },
        ],
        [
          'remove',
          'DELETE',
          `${V4}/room/${t}/attendees`,
          { attendeeId: 999999 },
          { owner: 404, mod: 404, user: 403, selfj: 403, guest: 403, gmod: 404, outsider: 404, anonymous: 404 },
        ],
        [
          'promote',
          'POST',
          `${V4}/room/${t}/moderators`,
          { attendeeId: 999999 },
          { owner: 404, mod: 404, user: 403, selfj: 403, guest: 403, gmod: 404, outsider: 404, anonymous: 404 },
        ],
        [
          'demote',
          'DELETE',
          `${V4}/room/${t}/moderators`,
          { attendeeId: 999999 },
          { owner: 404, mod: 404, user: 403, selfj: 403, guest: 403, gmod: 404, outsider: 404, anonymous: 404 },
        ],
        [
          'permissions',
          'PUT',
          `${V4}/room/${t}/attendees/permissions`,
          { attendeeId: 999999, method: 'set', permissions: 4 },
          { owner: 404, mod: 404, user: 403, selfj: 403, guest: 403, gmod: 404, outsider: 404, anonymous: 404 },
        ],
        [
          'permissions/all',
          'PUT',
          `${V4}/room/${t}/attendees/permissions/all`,
          { method: 'set', permissions: 4 },
          { owner: 200, mod: 200, user: 403, selfj: 403, guest: 403, gmod: 200, outsider: 404, anonymous: 404 },
        ],
        [
          'resend',
          'POST',
          `${V4}/room/${t}/participants/resend-invitations`,
          { attendeeId: 999999 },
          { owner: 404, mod: 404, user: 403, selfj: 403, guest: 403, gmod: 403, outsider: 404, anonymous: 404 },
        ],
        [
          'guest name',
          'POST',
          `/apps/spreed/api/v1/guest/${t}/name`,
          { displayName: 'N' },
          { owner: 403, mod: 403, user: 403, selfj: 403, guest: 200, gmod: 200, outsider: 404, anonymous: 404 },
        ],
      ];
      for (const [name, method, path, body, expected] of endpoints) {
        for (const [who, status] of Object.entries(expected)) {
          const r = await call(p, method, path, { as: callers[who], ...(method === 'GET' ? {} : { body }) });
          assert.equal(r.status, status, `${name} as ${who}: ${r.text}`);
          if (status === 404 && ['owner', 'mod', 'gmod'].includes(who) && name !== 'add') assert.equal(r.data.error, 'participant', `${name} as ${who}`);
          if (status === 403 && !['guest name', 'list'].includes(name)) assert.equal(r.data.error, 'moderator', `${name} as ${who}`);
        }
      }
    });
  });
}
