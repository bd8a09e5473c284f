/**
 * What the route benches (run.mjs, cpu.mjs) share about bench/routes/*.mjs entries: seeding them
 * through the built services before the server starts, and preparing each one's request and
 * cookie-mode session once the server is up.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN, basic, closeSeedServices, dist, joinCookie, ocs, openSeedServices, storePrerendered } from './server.mjs';
import { seedWriter } from './writer.mjs';

/**
 * Seeds every entry (entries may share one seed function: it runs once and they all get its
 * state) and, with `writer`, the writer's account, in this process over `env`'s database.
 * Returns seed function → state.
 */
export async function seedRoutes(env, routes, writer) {
  const services = await openSeedServices(env);
  const seeded = new Map();
  try {
    const tools = { services, admin: ADMIN, basic, ocs, dist };
    for (const r of routes) if (r.seed && !seeded.has(r.seed)) seeded.set(r.seed, await r.seed(tools));
    if (writer) await seedWriter(services);
  } finally {
    await closeSeedServices(services);
  }
  return seeded;
}

/**
 * Each entry's request and the session cookie of its cookie mode: the entry's own (a real
 * session, e.g. from joining the conversation it reads), else a well-formed key that names no
 * session. In the entries' order.
 */
export async function prepareRoutes(url, dataDir, routes, seeded) {
  const prepared = [];
  for (const r of routes) {
    const ctx = {
      url,
      admin: ADMIN,
      basic,
      ocs,
      state: seeded.get(r.seed),
      joinCookie: (auth, token) => joinCookie(url, auth, token),
      storePrerendered: (name, p, headers) => storePrerendered(url, dataDir, name, p, headers),
    };
    if (r.prepare) ctx.state = await r.prepare(ctx);
    const cookie = r.cookie ? await r.cookie(ctx) : `parley_session=${randomBytes(32).toString('base64url')}`;
    prepared.push({ r, req: await r.request(ctx), cookie });
  }
  return prepared;
}

/** The request of `mode`: the cookie mode adds the entry's session cookie (unless it sends its own). */
export function inMode(mode, req, cookie) {
  if (mode !== 'cookie' || req.headers?.Cookie) return req;
  return { ...req, headers: { ...req.headers, Cookie: cookie } };
}
