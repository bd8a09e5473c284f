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
