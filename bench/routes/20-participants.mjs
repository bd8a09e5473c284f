/**
 * Participant bench routes: the participant list of a 5,000-attendee conversation against the
 * same body sent pre-rendered (in the cookie
 * mode, read by a user who joined it, as the web client does), and join churn (a browser
 * re-joining with its cookie session: every request creates a session and removes the one it
 * replaces; it sends its cookie in every mode). Join churn has a conversation of its own: its
 * concurrent re-joins with one cookie leave sessions behind until they time out (as in Talk),
 * which in the big conversation would grow the measured list past its pre-rendered baseline.
 */
import { userAttendeeRow } from '../lib/seed.mjs';

const CHURN_USER = { user: 'bench-churn', password: 'bench-churn-password-1' };
const USER = { user: 'bench-parts', password: 'bench-parts-password-1' };
const ATTENDEES = 5000;

/**
 * A user account and a meeting it owns, with `otherRows(roomId, now, ATTENDEE_DEFAULTS)` as its
 * further attendees (written 500 a statement).
 */
async function seedOwnedMeeting({ services, dist }, account, displayName, roomName, otherRows = () => []) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const { ATTENDEE_DEFAULTS } = await dist('db/repositories/attendees.js');
  const userRow = await userAttendeeRow(dist);
  await services.directory.createUser({ id: account.user, password: account.password, displayName });
  const cfg = await services.appConfig.snapshot();
  const now = Math.floor(Date.now() / 1000);
  const token = await services.rooms.newToken(cfg);
  await services.rooms.transaction(async (repos) => {
    const id = await repos.rooms.insert({ ...ROOM_DEFAULTS, token, type: 3, name: roomName, last_activity: now, created_at: now });
    const rows = [userRow(id, account.user, 1, now, displayName), ...otherRows(id, now, ATTENDEE_DEFAULTS)];
    for (let i = 0; i < rows.length; i += 500) await repos.attendees.insertIgnoringDuplicates(rows.slice(i, i + 500));
  });
  return { token };
}

/** One conversation with 5,000 attendees (both entries share it; run.mjs runs it once). */
const seed = (ctx) =>
  seedOwnedMeeting(ctx, USER, 'Bench Participants', 'Big meeting', (roomId, now, ATTENDEE_DEFAULTS) =>
    Array.from({ length: ATTENDEES - 1 }, (_, k) => {
      const i = k + 1;
      // E-mail guests and guest moderators stay listed without sessions.
      const email = i % 2 === 0;
      return {
        ...ATTENDEE_DEFAULTS,
        room_id: roomId,
        actor_type: email ? 'emails' : 'guests',
        actor_id: `bench-${i}`,
        display_name: `Attendee ${i}`,
        participant_type: email ? 4 : 6,
        invited_cloud_id: email ? `attendee${i}@example.com` : null,
        created_at: now,
      };
    }),
  );

/** A small conversation of its own for join churn. */
const seedChurn = (ctx) => seedOwnedMeeting(ctx, CHURN_USER, 'Bench Churn', 'Churn');

const participantsPath = (state) => `/ocs/v2.php/apps/spreed/api/v4/room/${state.token}/participants?format=json`;

export default [
  {
    // The same body sent as it is: participants-5000's baseline ("replaying the same body").
    name: 'participants-5000-prerendered',
    seed,
    async prepare({ basic, ocs, state, storePrerendered }) {
      await storePrerendered('participants-5000', participantsPath(state), { ...ocs, Authorization: basic(USER.user, USER.password) });
      return state;
    },
    request: () => ({ path: '/bench/prerendered/participants-5000' }),
  },
  {
    name: 'participants-5000',
    vs: 'participants-5000-prerendered',
    seed,
    cookie: ({ basic, state, joinCookie }) => joinCookie(basic(USER.user, USER.password), state.token),
    request: ({ basic, ocs, state }) => ({
      path: participantsPath(state),
      headers: { ...ocs, Authorization: basic(USER.user, USER.password) },
    }),
  },
  {
    name: 'join-churn',
    seed: seedChurn,
    async prepare({ basic, state, joinCookie }) {
      return { ...state, cookie: await joinCookie(basic(CHURN_USER.user, CHURN_USER.password), state.token) };
    },
    request: ({ basic, ocs, state }) => ({
      method: 'POST',
      path: `/ocs/v2.php/apps/spreed/api/v4/room/${state.token}/participants/active?format=json`,
      headers: { ...ocs, Authorization: basic(CHURN_USER.user, CHURN_USER.password), Cookie: state.cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ force: true }),
    }),
  },
];
