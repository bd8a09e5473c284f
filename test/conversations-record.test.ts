/**
 * The conversation record (contract "Conversation" table, docs/reference/conversations.md#the-conversation-record,
 * docs/reference/conversations.md#the-conversation-record): participant view, defaults, lobby effect and timer, permissions,
 * canStartCall, notification defaults, SIP fields, avatarVersion, sessions and statuses.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects, type Caller } from './helpers/parley.js';
import { cookieOf, countQueries, createRoom, joinGuest, NO_THROTTLE, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

/** Every field of the contract table not marked Removed, plus the docs/reference/conversations.md#the-conversation-record extras. */
const FIELDS = [
  'id',
  'token',
  'type',
  'name',
  'displayName',
  'description',
  'participantType',
  'attendeeId',
  'attendeePin',
  'actorType',
  'actorId',
  'permissions',
  'attendeePermissions',
  'callPermissions',
  'defaultPermissions',
  'participantFlags',
  'readOnly',
  'listable',
  'messageExpiration',
  'lastPing',
  'sessionId',
  'hasPassword',
  'hasCall',
  'callFlag',
  'canStartCall',
  'canDeleteConversation',
  'canLeaveConversation',
  'lastActivity',
  'isFavorite',
  'notificationLevel',
  'lobbyState',
  'lobbyTimer',
  'sipEnabled',
  'canEnableSIP',
  'unreadMessages',
  'unreadMention',
  'unreadMentionDirect',
  'lastReadMessage',
  'lastCommonReadMessage',
  'lastMessage',
  'objectType',
  'objectId',
  'breakoutRoomMode',
  'breakoutRoomStatus',
  'avatarVersion',
  'callStartTime',
  'callRecording',
  'notificationCalls',
  'isCustomAvatar',
  'recordingConsent',
  'mentionPermissions',
  'isArchived',
  'isImportant',
  'isSensitive',
  'liveTranscriptionLanguageId',
  // Required by Talk's current OpenAPI.
  'lastPinnedId',
  'hiddenPinnedId',
  'hasScheduledMessages',
  'tagIds',
  'attributes',
];
const REMOVED = ['participantInCall', 'count', 'numGuests', 'participants', 'guestList'];

for (const dialect of dialects()) {
  describe(`conversation record [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['carol'] });
    let room: any;
    before(async () => {
      await createUser(t.p, 'alice', { displayName: 'Alice A' });
      await createUser(t.p, 'bob', { displayName: 'Bob B', groups: ['callers'] });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Record' });
      await seedUser(t.p, room.token, 'bob', ParticipantType.USER);
      await seedUser(t.p, room.token, 'carol', ParticipantType.USER);
    });

    const get = (token: string, user?: string, extra: Record<string, unknown> = {}) =>
      t.call('GET', `${V4}/room/${token}`, { as: user ? as(user) : undefined, ...extra });
    const rec = async (token: string, user?: string, extra: Record<string, unknown> = {}) => {
      const r = await get(token, user, extra);
      assert.equal(r.status, 200, r.text);
      return r.data;
    };
    /** A guest of the group conversation `room`: guests join public conversations only, so it is public while the guest joins. */
    const groupGuest = async (): Promise<Caller> => {
      await setRoom(t.p, room.token, { type: RoomType.PUBLIC });
      try {
        return (await joinGuest(t.p, room.token)).caller;
      } finally {
        await setRoom(t.p, room.token, { type: RoomType.GROUP });
      }
    };
    const withConfig = async (values: Record<string, string>, fn: () => Promise<void>) => {
      for (const [k, v] of Object.entries(values)) await t.p.services.appConfig.set(k, v);
      try {
        await fn();
      } finally {
        for (const k of Object.keys(values)) await t.p.services.appConfig.delete(k);
      }
    };

    it('has every contract field (not the removed ones) with Talk types', async () => {
      const r = await rec(room.token, 'bob');
      for (const f of FIELDS) assert.ok(f in r, `missing ${f}`);
      for (const f of REMOVED) assert.ok(!(f in r), `removed ${f} present`);
      assert.equal(typeof r.canEnableSIP, 'boolean');
      assert.equal(typeof r.breakoutRoomMode, 'number');
      assert.equal(typeof r.breakoutRoomStatus, 'number');
      assert.equal(typeof r.sessionId, 'string');
      // The chat starts with the creation's system message (docs/reference/chat.md#system-messages).
      assert.equal(r.lastMessage.systemMessage, 'conversation_created');
      assert.equal(r.lastMessage.token, room.token);
      assert.equal(r.isArchived, false);
      assert.equal(r.isImportant, false);
      assert.equal(r.isSensitive, false);
      assert.equal(r.liveTranscriptionLanguageId, '');
      assert.equal(r.participantType, ParticipantType.USER);
      assert.equal(r.actorId, 'bob');
      assert.equal(r.canDeleteConversation, false);
      assert.equal(r.canLeaveConversation, true);
      assert.equal(r.notificationCalls, 1);
      assert.equal(r.recordingConsent, 0);
    });

    it('one-to-one: name is the other user id, displayName their display name', async () => {
      const one = await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const a = await rec(one.token, 'alice');
      assert.equal(a.name, 'bob');
      assert.equal(a.displayName, 'Bob B');
      assert.equal(a.notificationLevel, 1);
      assert.equal(a.canDeleteConversation, false);
      const b = await rec(one.token, 'bob');
      assert.equal(b.name, 'alice');
      assert.equal(b.displayName, 'Alice A');
      // Former one-to-one (the other user is gone): still their id and a readable name.
      await setRoom(t.p, one.token, { type: RoomType.ONE_TO_ONE_FORMER, name: '["alice","zed"]' });
      const f = await rec(one.token, 'alice');
      assert.equal(f.type, RoomType.ONE_TO_ONE_FORMER);
      assert.equal(f.name, 'zed');
      assert.equal(f.displayName, 'zed');
      assert.equal(f.notificationLevel, 1);
    });

    it('notificationLevel: stored value, else default_group_notification (2 when 0)', async () => {
      assert.equal((await rec(room.token, 'bob')).notificationLevel, 1);
      await withConfig({ default_group_notification: '3' }, async () => {
        assert.equal((await rec(room.token, 'bob')).notificationLevel, 3);
      });
      const row = await roomRow(t.p, room.token);
      await t.p.services.db.kysely
        .updateTable('attendees')
        .set({ notification_level: 2 })
        .where('room_id', '=', row!.id)
        .where('actor_id', '=', 'carol')
        .execute();
      assert.equal((await rec(room.token, 'carol')).notificationLevel, 2);
    });

    it('permissions: attendee, then call, then room default, then app config; moderators 254', async () => {
      assert.equal((await rec(room.token, 'bob')).permissions, 246);
      assert.equal((await rec(room.token, 'alice')).permissions, 254);
      await withConfig({ default_permissions: '126' }, async () => {
        assert.equal((await rec(room.token, 'bob')).permissions, 126);
      });
      await setRoom(t.p, room.token, { default_permissions: 129 });
      let r = await rec(room.token, 'bob');
      assert.equal(r.permissions, 129);
      assert.equal(r.defaultPermissions, 129);
      assert.equal(r.canStartCall, false, 'no start-call bit');
      await setRoom(t.p, room.token, { call_permissions: 7 });
      r = await rec(room.token, 'bob');
      assert.equal(r.permissions, 7);
      assert.equal(r.callPermissions, 7);
      const row = await roomRow(t.p, room.token);
      await t.p.services.db.kysely.updateTable('attendees').set({ permissions: 3 }).where('room_id', '=', row!.id).where('actor_id', '=', 'bob').execute();
      r = await rec(room.token, 'bob');
      assert.equal(r.permissions, 3);
      assert.equal(r.attendeePermissions, 3);
      assert.equal(r.canStartCall, true);
      await t.p.services.db.kysely.updateTable('attendees').set({ permissions: 0 }).where('room_id', '=', row!.id).where('actor_id', '=', 'bob').execute();
      await setRoom(t.p, room.token, { default_permissions: 0, call_permissions: 0 });
    });

    it('canStartCall follows start_calls and start_calls_groups', async () => {
      assert.equal((await rec(room.token, 'bob')).canStartCall, true);
      await withConfig({ start_calls: '2' }, async () => {
        assert.equal((await rec(room.token, 'bob')).canStartCall, false);
        assert.equal((await rec(room.token, 'alice')).canStartCall, true);
      });
      await withConfig({ start_calls: '3' }, async () => {
        assert.equal((await rec(room.token, 'alice')).canStartCall, false);
      });
      await withConfig({ start_calls_groups: '["callers"]' }, async () => {
        assert.equal((await rec(room.token, 'bob')).canStartCall, true);
        assert.equal((await rec(room.token, 'carol')).canStartCall, false);
        assert.equal((await rec(room.token, 'alice')).canStartCall, false, 'also applies to moderators');
      });
    });

    it('lobby effect: non-moderators without lobby-ignore see no call and cannot start one', async () => {
      await setRoom(t.p, room.token, { lobby_state: 1, active_since: 1700000000, call_flag: 3 });
      try {
        const held = await rec(room.token, 'bob');
        assert.equal(held.lobbyState, 1);
        assert.equal(held.hasCall, false);
        assert.equal(held.canStartCall, false);
        assert.equal(held.canLeaveConversation, true);
        const mod = await rec(room.token, 'alice');
        assert.equal(mod.hasCall, true);
        assert.equal(mod.callStartTime, 1700000000);
        assert.equal(mod.callFlag, 3);
        const row = await roomRow(t.p, room.token);
        await t.p.services.db.kysely
          .updateTable('attendees')
          .set({ permissions: 1 | 2 | 8 })
          .where('room_id', '=', row!.id)
          .where('actor_id', '=', 'carol')
          .execute();
        const ignoring = await rec(room.token, 'carol');
        assert.equal(ignoring.hasCall, true);
        assert.equal(ignoring.canStartCall, true);
      } finally {
        await setRoom(t.p, room.token, { lobby_state: 0, active_since: null, call_flag: 0 });
      }
    });

    it('lobby timer: an expired timer lifts the lobby on read and is saved; a future one is shown', async () => {
      const future = Math.floor(Date.now() / 1000) + 3600;
      await setRoom(t.p, room.token, { lobby_state: 1, lobby_timer: future });
      let r = await rec(room.token, 'bob');
      assert.equal(r.lobbyState, 1);
      assert.equal(r.lobbyTimer, future);
      await setRoom(t.p, room.token, { lobby_state: 1, lobby_timer: 1000, last_activity: 5 });
      r = await rec(room.token, 'bob');
      assert.equal(r.lobbyState, 0);
      assert.equal(r.lobbyTimer, 0);
      const row = await roomRow(t.p, room.token);
      assert.equal(row!.lobby_state, 0);
      assert.equal(row!.lobby_timer, 0);
      assert.ok(row!.last_activity > 5, 'timer reached counts as activity');
    });

    it('room columns: description, readOnly, hasPassword, messageExpiration, avatarVersion', async () => {
      const plain = await rec(room.token, 'bob');
      assert.equal(plain.isCustomAvatar, false);
      assert.match(plain.avatarVersion, /^[0-9a-f]{8}$/);
      const pub = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Public' });
      assert.notEqual(pub.avatarVersion, plain.avatarVersion, 'the default icon depends on the type');
      await setRoom(t.p, room.token, { description: 'About', read_only: 1, password: 'hash', message_expiration: 3600, avatar: 'a1b2c3d4e5.png' });
      try {
        const r = await rec(room.token, 'bob');
        assert.equal(r.description, 'About');
        assert.equal(r.readOnly, 1);
        assert.equal(r.hasPassword, true);
        assert.equal(r.messageExpiration, 3600);
        assert.equal(r.avatarVersion, 'a1b2c3d4e5');
        assert.equal(r.isCustomAvatar, true);
      } finally {
        await setRoom(t.p, room.token, { description: '', read_only: 0, password: '', message_expiration: 0, avatar: '' });
      }
    });

    it('SIP: sipEnabled and attendeePin only when SIP is configured; PINs generated once and kept', async () => {
      await setRoom(t.p, room.token, { sip_enabled: 1 });
      let r = await rec(room.token, 'bob');
      assert.equal(r.sipEnabled, 0);
      assert.equal(r.attendeePin, '');
      assert.equal(r.canEnableSIP, false);
      await withConfig({ sip_bridge_shared_secret: 'very-secret', sip_bridge_dialin_info: '+1 555 0100' }, async () => {
        r = await rec(room.token, 'bob');
        assert.equal(r.sipEnabled, 1);
        assert.match(r.attendeePin, /^[1-9]\d{6}$/);
        const again = await rec(room.token, 'bob');
        assert.equal(again.attendeePin, r.attendeePin);
        assert.equal(again.canEnableSIP, false, 'normal users cannot enable SIP');
        // Owners can only enable SIP on numeric (SIP-compatible) tokens.
        assert.equal((await rec(room.token, 'alice')).canEnableSIP, false);
        const numeric = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Dial in' });
        assert.match(numeric.token, /^\d{10}$/);
        assert.equal(numeric.canEnableSIP, true);
        await t.p.services.appConfig.set('sip_bridge_groups', '["callers"]');
        assert.equal((await rec(numeric.token, 'alice')).canEnableSIP, false);
        await t.p.services.appConfig.delete('sip_bridge_groups');
        // Guests have no PIN.
        const g = await rec(room.token, undefined, { as: await groupGuest() });
        assert.equal(g.actorType, 'guests');
        assert.equal(g.attendeePin, '', 'a string, never null (contract type column)');
      });
      await setRoom(t.p, room.token, { sip_enabled: 0 });
    });

    it('guests: participant record with "Private conversation" outside public rooms, notificationLevel 3', async () => {
      const g = await rec(room.token, undefined, { as: await groupGuest() });
      assert.equal(g.type, RoomType.GROUP);
      assert.equal(g.displayName, 'Private conversation');
      assert.equal(g.actorType, 'guests');
      assert.equal(g.notificationLevel, 3);
      assert.equal(g.canLeaveConversation, false);
      assert.equal(g.canDeleteConversation, false);
    });

    it("the caller's own session and the other user's status, statuses loaded in one batch", async () => {
      const one = await createRoom(t.p, 'carol', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const joined = await t.call('POST', `${V4}/room/${one.token}/participants/active`, { as: as('carol') });
      assert.equal(joined.status, 200, joined.text);
      const carol: Caller = { ...as('carol'), headers: { Cookie: cookieOf(joined) } };
      await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: as('bob'), body: { statusType: 'dnd' } });
      const msg = await t.call('PUT', '/apps/user_status/api/v1/user_status/message/custom', { as: as('bob'), body: { statusIcon: '🎧', message: 'Busy' } });
      assert.equal(msg.status, 200, msg.text);

      const r = await rec(one.token, undefined, { as: carol });
      assert.equal(r.sessionId, joined.data.sessionId);
      assert.equal(r.participantFlags, 0);
      assert.ok(r.lastPing > 0);
      assert.equal(r.status, 'dnd');
      assert.equal(r.statusIcon, '🎧');
      assert.equal(r.statusMessage, 'Busy');
      // Without the session cookie the same user has no session in the record.
      assert.equal((await rec(one.token, 'carol')).sessionId, '0');

      const list = await t.call('GET', `${V4}/room`, { as: as('carol') });
      assert.ok(
        list.data.some((c: any) => c.token === one.token),
        'the list holds the conversation whose status is checked',
      );
      assert.ok(
        list.data.every((c: any) => !('status' in c)),
        'no status without includeStatus',
      );
      const withStatus = await t.call('GET', `${V4}/room`, { as: as('carol'), query: { includeStatus: 'true' } });
      assert.equal(withStatus.data.find((c: any) => c.token === one.token).status, 'dnd');
      assert.ok(!('status' in withStatus.data.find((c: any) => c.token === room.token)));

      // A second one-to-one with a status costs no extra query: statuses come in one batch.
      const listCost = () => countQueries(t.p, () => t.call('GET', `${V4}/room`, { as: as('carol'), query: { includeStatus: 'true', modifiedSince: 1 } }));
      // Both measured right after a write, so neither answer comes from the rendered-answer cache.
      await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: as('bob'), body: { statusType: 'dnd' } });
      const before = await listCost();
      await createRoom(t.p, 'carol', { roomType: RoomType.ONE_TO_ONE, invite: 'alice' });
      await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: as('alice'), body: { statusType: 'away' } });
      // The new one-to-one's record is rendered once, then kept as the first one was.
      await listCost();
      await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: as('bob'), body: { statusType: 'dnd' } });
      assert.equal(await listCost(), before);
    });
  });
}
