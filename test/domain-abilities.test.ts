/**
 * Named abilities (src/domain/abilities.ts) as a table: each participant type against each rule.
 * The services' HTTP suites (polls, pins, mention permissions, lobby, permissions, calls,
 * signaling, SIP) prove the wiring; this proves the rule.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { may } from '../src/domain/abilities.js';
import { LobbyState, Permission, ParticipantType, ReadOnlyState, RoomType } from '../src/domain/constants.js';

const { OWNER, MODERATOR, USER, GUEST, USER_SELF_JOINED, GUEST_MODERATOR } = ParticipantType;
const ALL: number[] = [OWNER, MODERATOR, USER, GUEST, USER_SELF_JOINED, GUEST_MODERATOR];
const MODERATORS: number[] = [OWNER, MODERATOR, GUEST_MODERATOR];
const LOGGED_IN_MODERATORS: number[] = [OWNER, MODERATOR];
const p = (participant_type: number) => ({ participant_type });
/** Every permission bit alone, none, and all of them. */
const BITS: number[] = [0, ...Object.values(Permission).filter((b) => b > 0), 511];

describe('abilities', () => {
  it('mentionAll: everybody while mention permissions are 0, moderators only while 1', () => {
    for (const t of ALL) {
      assert.equal(may.mentionAll({ mention_permissions: 0 }, p(t)), true, `type ${t}, permissions 0`);
      assert.equal(may.mentionAll({ mention_permissions: 1 }, p(t)), MODERATORS.includes(t), `type ${t}, permissions 1`);
    }
  });

  it('pinMessages and draftPolls: moderators, guest moderators included', () => {
    for (const t of ALL) {
      assert.equal(may.pinMessages(p(t)), MODERATORS.includes(t), `pin, type ${t}`);
      assert.equal(may.draftPolls(p(t)), MODERATORS.includes(t), `drafts, type ${t}`);
    }
  });

  it('managePoll: its author whatever their type, otherwise moderators', () => {
    for (const t of ALL) {
      assert.equal(may.managePoll(p(t), true), true, `author, type ${t}`);
      assert.equal(may.managePoll(p(t), false), MODERATORS.includes(t), `not author, type ${t}`);
    }
  });

  it('moderate: owners, moderators and guest moderators; moderateAsUser: not guest moderators', () => {
    for (const t of ALL) {
      assert.equal(may.moderate(p(t)), MODERATORS.includes(t), `moderate, type ${t}`);
      assert.equal(may.moderateAsUser(p(t)), LOGGED_IN_MODERATORS.includes(t), `moderateAsUser, type ${t}`);
      assert.equal(may.endCallForEveryone(p(t)), MODERATORS.includes(t), `endCallForEveryone, type ${t}`);
    }
  });

  it('passLobby: everybody while the lobby is off; while on, moderators and the lobby-ignore bit', () => {
    for (const t of ALL) {
      for (const bits of BITS) {
        const ignores = (bits & Permission.LOBBY_IGNORE) !== 0;
        assert.equal(may.passLobby(LobbyState.NONE, p(t), bits), true, `off, type ${t}, bits ${bits}`);
        assert.equal(may.passLobby(LobbyState.NON_MODERATORS, p(t), bits), MODERATORS.includes(t) || ignores, `on, type ${t}, bits ${bits}`);
      }
    }
  });

  it('chat, publish and callOthers: each its own permission bit and no other', () => {
    const table: [string, (bits: number) => boolean, number][] = [
      ['chat', (b) => may.chat(b), Permission.CHAT],
      ['publish audio', (b) => may.publish(b, 'audio'), Permission.PUBLISH_AUDIO],
      ['publish video', (b) => may.publish(b, 'video'), Permission.PUBLISH_VIDEO],
      ['publish screen', (b) => may.publish(b, 'screen'), Permission.PUBLISH_SCREEN],
      ['callOthers', (b) => may.callOthers(b), Permission.START_CALL],
    ];
    for (const [name, rule, bit] of table) {
      for (const bits of BITS) assert.equal(rule(bits), (bits & bit) !== 0, `${name}, bits ${bits}`);
    }
  });

  it('postIn: every conversation but a read-only one and the changelog', () => {
    for (const type of Object.values(RoomType)) {
      for (const readOnly of Object.values(ReadOnlyState)) {
        const expected = readOnly === ReadOnlyState.READ_WRITE && type !== RoomType.CHANGELOG;
        assert.equal(may.postIn({ type, read_only: readOnly }), expected, `type ${type}, read-only ${readOnly}`);
      }
    }
  });

  it('logged-in moderators only: controlOthersInCall, clearHistory; deletePoll also its author', () => {
    for (const t of ALL) {
      const expected = LOGGED_IN_MODERATORS.includes(t);
      assert.equal(may.controlOthersInCall(p(t)), expected, `controlOthersInCall, type ${t}`);
      assert.equal(may.clearHistory(p(t)), expected, `clearHistory, type ${t}`);
      assert.equal(may.deletePoll(p(t), false), expected, `deletePoll, not author, type ${t}`);
      assert.equal(may.deletePoll(p(t), true), true, `deletePoll, author, type ${t}`);
    }
  });

  it('changeOthersMessages: logged-in moderators, except in one-to-ones', () => {
    for (const type of Object.values(RoomType)) {
      const oneToOne = type === RoomType.ONE_TO_ONE || type === RoomType.ONE_TO_ONE_FORMER;
      for (const t of ALL) {
        assert.equal(may.changeOthersMessages({ type }, p(t)), LOGGED_IN_MODERATORS.includes(t) && !oneToOne, `room type ${type}, type ${t}`);
      }
    }
  });

  it('joinOneBreakoutRoom: everybody but moderators (who are in every breakout room)', () => {
    for (const t of ALL) assert.equal(may.joinOneBreakoutRoom(p(t)), !MODERATORS.includes(t), `type ${t}`);
  });
});
