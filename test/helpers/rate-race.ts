/**
 * One process of test/push-rate-limits.test.ts: for each of `rounds` rounds, takes a rate like
 * the push rate (its own action each round) for the users given, in the given order, each user
 * wanting `want`, at one fixed time; prints how many were granted to each user in all as JSON. Database from the
 * environment (DATABASE_URL, DATABASE_SCHEMA, DATA_DIR), already migrated.
 */
import { openDatabase } from '../../src/db/database.js';
import { UserRateLimitsRepository } from '../../src/db/repositories/user-rate-limits.js';
import { PUSH_RATE } from '../../src/domain/rate-limits.js';

const [users, rounds, want, now, startAt] = [
  process.argv[2].split(','),
  Number(process.argv[3]),
  Number(process.argv[4]),
  Number(process.argv[5]),
  Number(process.argv[6]),
];
const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema: process.env.DATABASE_SCHEMA, dataDir: process.env.DATA_DIR! });
const repo = new UserRateLimitsRepository(db.kysely, db.dialect);
const granted = new Map(users.map((u) => [u, 0]));
// Both processes start their rounds at the same moment.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
for (let i = 0; i < rounds; i++) {
  // A fresh action each round: the processes race for the whole of every round's cap.
  const got = await repo.takeMany(new Map(users.map((u) => [u, want])), { ...PUSH_RATE, action: `${PUSH_RATE.action}-race-${i}` }, now);
  for (const [u, n] of got) granted.set(u, granted.get(u)! + n);
}
await db.close();
process.stdout.write(JSON.stringify(Object.fromEntries(granted)));
