/**
 * Which change-feed topics a rendered answer depends on (change-feed.ts; the topics are
 * defined in topics.ts). One place for these rules, so that what a
 * cached answer is reused across can be read and checked in one file: an answer names every
 * topic whose rows it shows, besides `g`, which every answer depends on.
 */
import { memberTopic, roomTopic, userTopic } from './topics.js';
import { otherUserId, type OneToOneRoom } from '../domain/one-to-one.js';

/** What the topics of a conversation's record read of it. */
type Room = OneToOneRoom & { id: number };

/** A conversation's record for `userId`: its rows, and the other user of a one-to-one (their name and status). */
export function recordTopics(room: Room, userId: string): string[] {
  const other = otherUserId(room, userId);
  return other === undefined ? [roomTopic(room.id)] : [roomTopic(room.id), userTopic(other)];
}

/** GET /room of `userId`: its set of conversations, its own rows, and each conversation's record. */
export function conversationListTopics(userId: string, rooms: Iterable<Room>): string[] {
  const topics = [memberTopic('users', userId), userTopic(userId)];
  for (const room of rooms) topics.push(...recordTopics(room, userId));
  return topics;
}

/** GET /room/{token} for `userId`: the record and the caller's own rows. */
export function conversationTopics(room: Room, userId: string): string[] {
  return [...recordTopics(room, userId), userTopic(userId)];
}

/** A participant list: the conversation and, with statuses, every listed user (a first status is a change too). */
export function participantListTopics(roomId: number, usersWithStatus: readonly string[]): string[] {
  return [roomTopic(roomId), ...usersWithStatus.map(userTopic)];
}

/** Capabilities: the caller's preferences (configuration and groups are `g`); nothing more for an anonymous caller. */
export function capabilitiesTopics(userId: string | undefined): string[] {
  return userId === undefined ? [] : [userTopic(userId)];
}
