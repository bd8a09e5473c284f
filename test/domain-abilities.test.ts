/**
 * Named abilities (src/domain/abilities.ts) as a table: each participant type against each rule.
 * The services' HTTP suites (polls, pins, mention permissions) prove the wiring; this proves the rule.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { may } from '../src/domain/abilities.js';
import { ParticipantType } from '../src/domain/constants.js';

const { OWNER, MODERATOR, USER, GUEST, USER_SELF_JOINED, GUEST_MODERATOR } = ParticipantType;
const ALL: number[] = [OWNER, MODERATOR, USER, GUEST, USER_SELF_JOINED, GUEST_MODERATOR];
const MODERATORS: number[] = [OWNER, MODERATOR, GUEST_MODERATOR];
const p = (participant_type: number) => ({ participant_type });

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
});
