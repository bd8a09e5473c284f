/** Pure rules: permissions chain, canStartCall, leave/delete, tokens and PINs (domain modules). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  canDeleteConversation,
  canLeaveConversation,
  canStartCall,
  effectivePermissions,
  heldInLobby,
  isCustom,
  isValidPermissionValue,
  serverDefaultPermissions,
  withCustomBit,
  type StartCallInput,
} from '../src/domain/permissions.js';
import { isSipCompatibleToken, isWellFormedToken, newAttendeePin, newToken, randomToken, TOKEN_ALPHABET } from '../src/domain/tokens.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

describe('effective permissions', () => {
  const base = { participantType: ParticipantType.USER, attendeePermissions: 0, callPermissions: 0, defaultPermissions: 0, serverDefault: 246 };

  it('takes the first non-zero level: attendee, call, room default, server default', () => {
    assert.equal(effectivePermissions(base), 246);
    assert.equal(effectivePermissions({ ...base, defaultPermissions: 129 }), 129);
    assert.equal(effectivePermissions({ ...base, defaultPermissions: 129, callPermissions: 5 }), 5);
    assert.equal(effectivePermissions({ ...base, defaultPermissions: 129, callPermissions: 5, attendeePermissions: 1 }), 1);
  });

  it('gives owners, moderators and guest moderators 254 whatever the chain says', () => {
    for (const t of [1, 2, 6]) assert.equal(effectivePermissions({ ...base, participantType: t, attendeePermissions: 1 }), 254);
    for (const t of [3, 4, 5]) assert.equal(effectivePermissions({ ...base, participantType: t, attendeePermissions: 1 }), 1);
  });

  it('reads the server default from app config, 246 when empty, clamped to 0..511', () => {
    assert.equal(serverDefaultPermissions(undefined), 246);
    assert.equal(serverDefaultPermissions(''), 246);
    assert.equal(serverDefaultPermissions('126'), 126);
    assert.equal(serverDefaultPermissions('999'), 511);
    assert.equal(serverDefaultPermissions('abc'), 246);
  });

  it('Custom bit helpers', () => {
    assert.equal(withCustomBit(0), 0);
    assert.equal(withCustomBit(128), 129);
    assert.equal(withCustomBit(129), 129);
    assert.equal(isCustom(129), true);
    assert.equal(isCustom(128), false);
    assert.equal(isValidPermissionValue(255), true);
    assert.equal(isValidPermissionValue(512), false);
    assert.equal(isValidPermissionValue(511), true);
    assert.equal(isValidPermissionValue(-1), false);
  });

  it('the lobby holds back non-moderators without the lobby-ignore bit', () => {
    assert.equal(heldInLobby(1, 3, 246), true);
    assert.equal(heldInLobby(1, 3, 254), false);
    assert.equal(heldInLobby(1, 6, 1), false);
    assert.equal(heldInLobby(0, 3, 1), false);
  });
});

describe('canStartCall (docs/reference/participants.md#effective-permissions-and-call-start)', () => {
  const ok: StartCallInput = {
    roomType: RoomType.GROUP,
    participantType: ParticipantType.USER,
    actorType: 'users',
    effectivePermissions: 246,
    startCalls: 0,
    startCallsGroups: [],
    inStartCallsGroups: false,
  };

  it('everyone by default', () => assert.equal(canStartCall(ok), true));
  it('never in note-to-self', () => assert.equal(canStartCall({ ...ok, roomType: RoomType.NOTE_TO_SELF }), false));
  it('never when start_calls is 3', () => assert.equal(canStartCall({ ...ok, startCalls: 3, participantType: ParticipantType.OWNER }), false));
  it('not without the start-call bit', () => assert.equal(canStartCall({ ...ok, effectivePermissions: 246 & ~2 }), false));
  it('start_calls 1 refuses plain guests, allows guest moderators', () => {
    assert.equal(canStartCall({ ...ok, startCalls: 1, participantType: ParticipantType.GUEST, actorType: 'guests' }), false);
    assert.equal(canStartCall({ ...ok, startCalls: 1, participantType: ParticipantType.GUEST_MODERATOR, actorType: 'guests' }), true);
    assert.equal(canStartCall({ ...ok, startCalls: 1 }), true);
  });
  it('start_calls 2 allows moderators only', () => {
    assert.equal(canStartCall({ ...ok, startCalls: 2 }), false);
    for (const t of [1, 2, 6]) assert.equal(canStartCall({ ...ok, startCalls: 2, participantType: t }), true);
  });
  it('start_calls_groups: only users in those groups, also moderators', () => {
    const g = { ...ok, startCallsGroups: ['callers'] };
    assert.equal(canStartCall(g), false);
    assert.equal(canStartCall({ ...g, inStartCallsGroups: true }), true);
    assert.equal(canStartCall({ ...g, participantType: ParticipantType.OWNER }), false);
    assert.equal(canStartCall({ ...g, inStartCallsGroups: true, actorType: 'guests', participantType: ParticipantType.GUEST_MODERATOR }), false);
  });
});

describe('leave and delete rules', () => {
  const base = { roomType: RoomType.GROUP, participantType: ParticipantType.USER, actorType: 'users', deleteOneToOne: false };
  it('only owners and moderators (users) may delete; never one-to-one unless configured', () => {
    assert.equal(canDeleteConversation(base), false);
    assert.equal(canDeleteConversation({ ...base, participantType: ParticipantType.OWNER }), true);
    assert.equal(canDeleteConversation({ ...base, participantType: ParticipantType.MODERATOR }), true);
    assert.equal(canDeleteConversation({ ...base, participantType: ParticipantType.GUEST_MODERATOR, actorType: 'guests' }), false);
    assert.equal(canDeleteConversation({ ...base, roomType: RoomType.ONE_TO_ONE, participantType: ParticipantType.OWNER }), false);
    assert.equal(canDeleteConversation({ ...base, roomType: RoomType.ONE_TO_ONE, participantType: ParticipantType.OWNER, deleteOneToOne: true }), true);
  });
  it('users may leave except note-to-self (and one-to-one when leaving deletes it)', () => {
    assert.equal(canLeaveConversation(base), true);
    assert.equal(canLeaveConversation({ ...base, roomType: RoomType.NOTE_TO_SELF }), false);
    assert.equal(canLeaveConversation({ ...base, actorType: 'guests', participantType: ParticipantType.GUEST }), false);
    assert.equal(canLeaveConversation({ ...base, roomType: RoomType.ONE_TO_ONE }), true);
    assert.equal(canLeaveConversation({ ...base, roomType: RoomType.ONE_TO_ONE, deleteOneToOne: true }), false);
  });
});

describe('tokens and PINs', () => {
  it('uses the Talk alphabet and length max(8, entropy)', () => {
    for (let i = 0; i < 50; i++) {
      const t = randomToken(8, false);
      assert.equal(t.length, 8);
      for (const c of t) assert.ok(TOKEN_ALPHABET.includes(c), `unexpected ${c}`);
    }
    assert.equal(randomToken(4, false).length, 8);
    assert.equal(randomToken(12, false).length, 12);
    assert.ok(!/[l01]/.test(TOKEN_ALPHABET));
  });

  it('numeric SIP tokens: length max(10, entropy), SIP compatible', () => {
    for (let i = 0; i < 50; i++) {
      const t = randomToken(8, true);
      assert.equal(t.length, 10);
      assert.ok(isSipCompatibleToken(t), t);
      assert.ok(isWellFormedToken(t));
    }
    assert.equal(randomToken(14, true).length, 14);
  });

  it('isSipCompatibleToken: digits only, no leading 0, no repeated adjacent digit', () => {
    assert.equal(isSipCompatibleToken('1234567890'), true);
    assert.equal(isSipCompatibleToken('0123456789'), false);
    assert.equal(isSipCompatibleToken('1123456789'), false);
    assert.equal(isSipCompatibleToken('12345a7890'), false);
  });

  it('skips reserved and taken tokens', async () => {
    const seen: string[] = [];
    let n = 0;
    const t = await newToken(8, false, async (c) => {
      seen.push(c);
      return n++ < 3;
    });
    assert.equal(seen.length, 4);
    assert.equal(t, seen[3]);
    assert.notEqual(t, 'settings');
  });

  it('PINs are 7 digits, no leading 0, no repeated adjacent digit', () => {
    for (let i = 0; i < 50; i++) {
      const pin = newAttendeePin();
      assert.match(pin, /^[1-9]\d{6}$/);
      assert.ok(!/(\d)\1/.test(pin), pin);
    }
  });

  it('well-formed tokens are [a-z0-9]{4,30}', () => {
    assert.equal(isWellFormedToken('abcd'), true);
    assert.equal(isWellFormedToken('abc'), false);
    assert.equal(isWellFormedToken('ABCD1234'), false);
    assert.equal(isWellFormedToken('a'.repeat(31)), false);
    assert.equal(isWellFormedToken(42), false);
  });
});
