/** Who may see a conversation (domain/visibility.ts; docs/reference/conversations.md#lookup-and-visibility): pure, no server. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { conversationVisibility, isListedFor, listableScopes, type VisibilityFacts } from '../src/domain/visibility.js';
import { GUEST_APP_GROUP, ListableScope, RoomType } from '../src/domain/constants.js';

const stranger: VisibilityFacts = {
  isAttendee: false,
  isSystem: false,
  sipBridge: false,
  loggedIn: true,
  roomType: RoomType.GROUP,
  listable: ListableScope.NONE,
};

describe('conversation visibility', () => {
  it('a group conversation is hidden from a logged-in stranger unless listed', () => {
    assert.equal(conversationVisibility(stranger), 'hidden');
    assert.equal(conversationVisibility({ ...stranger, listable: ListableScope.USERS }), 'if-listed');
    assert.equal(conversationVisibility({ ...stranger, listable: ListableScope.ALL }), 'if-listed');
  });

  it('attendees, the operator, the SIP bridge and anyone for public conversations see it', () => {
    assert.equal(conversationVisibility({ ...stranger, isAttendee: true }), 'visible');
    assert.equal(conversationVisibility({ ...stranger, isSystem: true, loggedIn: false }), 'visible');
    assert.equal(conversationVisibility({ ...stranger, sipBridge: true, loggedIn: false }), 'visible');
    assert.equal(conversationVisibility({ ...stranger, roomType: RoomType.PUBLIC, loggedIn: false }), 'visible');
  });

  it('anonymous callers never see listed conversations they are not in', () => {
    assert.equal(conversationVisibility({ ...stranger, loggedIn: false, listable: ListableScope.ALL }), 'hidden');
    assert.equal(conversationVisibility({ ...stranger, loggedIn: false, roomType: RoomType.ONE_TO_ONE }), 'hidden');
  });

  it('listable scopes: none anonymous, both for users, only "all" for guest-app accounts', () => {
    assert.deepEqual(listableScopes(false, []), []);
    assert.deepEqual(listableScopes(true, ['staff']), [ListableScope.USERS, ListableScope.ALL]);
    assert.deepEqual(listableScopes(true, [GUEST_APP_GROUP]), [ListableScope.ALL]);
  });

  it('a room is listed for a caller only under one of its scopes, never when not listable', () => {
    assert.equal(isListedFor(ListableScope.USERS, [ListableScope.USERS, ListableScope.ALL]), true);
    assert.equal(isListedFor(ListableScope.USERS, [ListableScope.ALL]), false);
    assert.equal(isListedFor(ListableScope.NONE, [ListableScope.NONE as number]), false);
  });
});
