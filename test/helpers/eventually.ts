/**
 * Waiting for another process's change to arrive. On PostgreSQL a process's read cache hears a
 * commit made elsewhere when the NOTIFY reaches its LISTEN connection (docs/architecture.md
 * "Read cache"), a moment after the writer has answered; tests of that window retry a probe
 * within a bound instead of sleeping.
 */

/**
 * Calls `probe` until it returns true (every 5 ms, at most `ms` in all); returns the number of
 * calls it took, and throws `what` when the bound passes first.
 */
export async function eventually(what: string, probe: () => Promise<boolean>, ms = 5000): Promise<number> {
  const until = Date.now() + ms;
  for (let n = 1; ; n++) {
    if (await probe()) return n;
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Reads what a change made through another process should show: on SQLite the next read must
 * show it (the change stamp is read as each request starts); on PostgreSQL reads are retried
 * until it shows (the commit's NOTIFY has arrived), within `eventually`'s bound. Returns the read
 * that showed it; throws `what` otherwise.
 */
export async function seenAcross<T>(dialect: 'sqlite' | 'postgres', what: string, read: () => Promise<T>, shows: (value: T) => boolean): Promise<T> {
  let last = await read();
  if (dialect === 'sqlite' || shows(last)) {
    if (!shows(last)) throw new Error(`${what}: not shown by the next request (${JSON.stringify(last)})`);
    return last;
  }
  await eventually(what, async () => shows((last = await read())));
  return last;
}
