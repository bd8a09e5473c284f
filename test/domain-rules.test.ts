/** Room names, moderator types and the named errors of domain/ (pure, no server). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeRoomName, requireRoomName } from '../src/domain/room-name.js';
import { ApiError } from '../src/domain/errors.js';
import { ParticipantType, ROOM_NAME_MAX } from '../src/domain/constants.js';
import { isLoggedInModeratorType, isModeratorType, LOGGED_IN_MODERATOR_TYPES, MODERATOR_TYPES, PUBLIC_ONLY_TYPES } from '../src/domain/permissions.js';

describe('room names', () => {
  it('are trimmed and counted in characters, not bytes', () => {
    assert.equal(normalizeRoomName('  Team  '), 'Team');
    assert.equal(normalizeRoomName('😀'.repeat(ROOM_NAME_MAX)), '😀'.repeat(ROOM_NAME_MAX));
    assert.equal(normalizeRoomName('x'.repeat(ROOM_NAME_MAX + 1)), undefined);
    assert.equal(normalizeRoomName(' \t '), undefined);
  });

  it('a broken name is one 400 with one message, under the field the endpoint names', () => {
    const refused = (raw: string, field?: string) => {
      try {
        requireRoomName(raw, field);
      } catch (e) {
        return e as ApiError;
      }
      assert.fail('accepted');
    };
    const create = refused('');
    const rename = refused('y'.repeat(ROOM_NAME_MAX + 1), 'value');
    assert.equal(create.status, 400);
    assert.deepEqual(create.data, { error: 'name', message: `Invalid room name: it must be 1 to ${ROOM_NAME_MAX} characters` });
    assert.equal(rename.status, 400);
    assert.equal((rename.data as any).error, 'value');
    assert.equal((rename.data as any).message, (create.data as any).message);
    assert.equal(requireRoomName(' ok '), 'ok');
  });
});

describe('moderator types', () => {
  it('owner, moderator and guest moderator moderate; only the first two are logged-in moderators', () => {
    assert.deepEqual([...MODERATOR_TYPES].sort(), [ParticipantType.OWNER, ParticipantType.MODERATOR, ParticipantType.GUEST_MODERATOR].sort());
    assert.deepEqual([...LOGGED_IN_MODERATOR_TYPES].sort(), [ParticipantType.OWNER, ParticipantType.MODERATOR].sort());
    for (const t of Object.values(ParticipantType)) {
      assert.equal(isModeratorType(t), MODERATOR_TYPES.includes(t), `type ${t}`);
      assert.equal(isLoggedInModeratorType(t), t === ParticipantType.OWNER || t === ParticipantType.MODERATOR, `type ${t}`);
    }
    assert.equal(isModeratorType(ParticipantType.USER), false);
    assert.equal(isModeratorType(ParticipantType.GUEST), false);
  });

  it('public-only types are the guests and self-joined users', () => {
    assert.deepEqual([...PUBLIC_ONLY_TYPES].sort(), [ParticipantType.GUEST, ParticipantType.USER_SELF_JOINED, ParticipantType.GUEST_MODERATOR].sort());
    assert.throws(() => (MODERATOR_TYPES as number[]).push(3), TypeError, 'the sets are frozen');
  });
});
