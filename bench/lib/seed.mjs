/**
 * Seeding helpers shared by the bench routes: rows written straight through the repositories
 * (thousands of conversations would take minutes through the API).
 */

/** A builder of a user's attendee row: `(roomId, userId, participantType, now, displayName?)`. */
export async function userAttendeeRow(dist) {
  const { ATTENDEE_DEFAULTS } = await dist('db/repositories/attendees.js');
  return (roomId, actorId, participantType, now, displayName = actorId) => ({
    ...ATTENDEE_DEFAULTS,
    room_id: roomId,
    actor_type: 'users',
    actor_id: actorId,
    display_name: displayName,
    participant_type: participantType,
    created_at: now,
  });
}

/**
 * Adds `count` conversations nobody of the bench is in, fast enough for a million: multi-row
 * inserts (1,000 rows a statement) in transactions of 50,000 conversations, straight through
 * Kysely. Each has two attendees (out of 20,000 made-up user ids, no accounts needed) and one
 * chat message, so the rooms, attendees and chat_messages tables all grow with it. Tokens are
 * `z` + base 36, distinct from the random ones. `onProgress(done)` after each transaction.
 */
export async function seedFillerRooms({ services, dist }, count, onProgress = () => {}) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const { ATTENDEE_DEFAULTS } = await dist('db/repositories/attendees.js');
  const { CHAT_MESSAGE_DEFAULTS } = await dist('db/repositories/chat-messages.js');
  const db = services.db.kysely;
  const now = Math.floor(Date.now() / 1000);
  const PER_STATEMENT = 1000;
  const PER_TRANSACTION = 50_000;
  for (let from = 0; from < count; from += PER_TRANSACTION) {
    const to = Math.min(count, from + PER_TRANSACTION);
    await db.transaction().execute(async (trx) => {
      for (let start = from; start < to; start += PER_STATEMENT) {
        const rooms = [];
        for (let i = start; i < Math.min(to, start + PER_STATEMENT); i++) {
          rooms.push({
            ...ROOM_DEFAULTS,
            token: `z${i.toString(36).padStart(7, '0')}`,
            type: 2 + (i % 2),
            name: `Filler ${i}`,
            last_activity: now - 100_000 - i,
            created_at: now - 100_000 - i,
          });
        }
        const ids = (await trx.insertInto('rooms').values(rooms).returning('id').execute()).map((r) => Number(r.id));
        const attendees = [];
        const messages = [];
        ids.forEach((roomId, k) => {
          const i = start + k;
          for (const actorId of [`filler-${i % 20_000}`, `filler-${(i + 7) % 20_000}`]) {
            attendees.push({
              ...ATTENDEE_DEFAULTS,
              room_id: roomId,
              actor_type: 'users',
              actor_id: actorId,
              display_name: actorId,
              participant_type: 3,
              created_at: now,
            });
          }
          messages.push({
            ...CHAT_MESSAGE_DEFAULTS,
            room_id: roomId,
            actor_type: 'users',
            actor_id: `filler-${i % 20_000}`,
            message: `Filler message ${i}`,
            message_type: 'comment',
            created_at: now - 100_000 - i,
          });
        });
        for (let a = 0; a < attendees.length; a += PER_STATEMENT)
          await trx
            .insertInto('attendees')
            .values(attendees.slice(a, a + PER_STATEMENT))
            .execute();
        await trx.insertInto('chat_messages').values(messages).execute();
      }
    });
    onProgress(to);
  }
}
