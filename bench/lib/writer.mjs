/**
 * The concurrent writer of the bench's `writer` mode and of the mixed load: a user who writes
 * into conversations nobody measured is in, at a fixed offered rate (open loop: a write is sent
 * when it is due, whether or not earlier ones have answered), cycling through the writes real
 * traffic makes: a session ping (re-join with the session cookie), a rename, a chat message.
 * Every write moves the database's change stamp, so no rendered answer survives it.
 *
 * At most `maxInFlight` writes are outstanding: a write due while that many are unanswered is
 * skipped (and counted), so a server that cannot keep up with the rate is measured with the
 * writes it can take instead of drowning in a backlog; the achieved rate is reported.
 */
import { basic, joinCookie, ocs } from './server.mjs';

const WRITER = { user: 'bench-writer', password: 'bench-writer-password-1' };
const ROOMS = 20;

/** Seeds the writer's account (before the server starts); its conversations are made over HTTP. */
export async function seedWriter(services) {
  await services.directory.createUser({ id: WRITER.user, password: WRITER.password, displayName: 'Bench Writer' });
}

/**
 * Once the server runs: creates the writer's conversations, joins them (one session cookie each,
 * for pings) and
 * returns `start(ratePerSecond)`, whose result's `stop()` ends the writes and returns what was
 * sent, how many failed and the achieved rate.
 */
export async function prepareWriter(url) {
  const auth = basic(WRITER.user, WRITER.password);
  const tokens = [];
  const cookies = [];
  for (let i = 0; i < ROOMS; i++) {
    const res = await fetch(`${url}/ocs/v2.php/apps/spreed/api/v4/room?format=json`, {
      method: 'POST',
      headers: { ...ocs, Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ roomType: 2, roomName: `Writer room ${i}` }),
    });
    const body = await res.json();
    if (res.status !== 201 && res.status !== 200) throw new Error(`bench writer: creating a conversation answered ${res.status}`);
    tokens.push(body.ocs.data.token);
    cookies.push(await joinCookie(url, auth, body.ocs.data.token));
  }
  const write = (n) => {
    const i = Math.floor(n / 3) % tokens.length;
    const token = tokens[i];
    const base = `${url}/ocs/v2.php/apps/spreed`;
    const form = { ...ocs, Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded' };
    switch (n % 3) {
      case 0:
        return fetch(`${base}/api/v4/room/${token}/participants/active?format=json`, {
          method: 'POST',
          headers: { ...ocs, Authorization: auth, Cookie: cookies[i] },
        });
      case 1:
        return fetch(`${base}/api/v4/room/${token}?format=json`, { method: 'PUT', headers: form, body: `roomName=Writer+room+${i}+rev+${n}` });
      default:
        return fetch(`${base}/api/v1/chat/${token}?format=json`, { method: 'POST', headers: form, body: `message=write+${n}` });
    }
  };
  return {
    start(rate, maxInFlight = 10) {
      const began = performance.now();
      const stats = { due: 0, sent: 0, skipped: 0, failed: 0 };
      const pending = new Set();
      const timer = setInterval(() => {
        const due = Math.floor(((performance.now() - began) / 1000) * rate);
        while (stats.due < due) {
          stats.due++;
          if (pending.size >= maxInFlight) {
            stats.skipped++;
            continue;
          }
          const p = write(stats.sent++)
            .then(async (r) => {
              await r.arrayBuffer();
              if (r.status >= 400) stats.failed++;
            })
            .catch(() => void stats.failed++)
            .finally(() => pending.delete(p));
          pending.add(p);
        }
      }, 5);
      return {
        async stop() {
          clearInterval(timer);
          const seconds = (performance.now() - began) / 1000;
          await Promise.all(pending);
          return { ...stats, perSecond: stats.sent / seconds };
        },
      };
    },
  };
}
