/**
 * Waiting for something to happen within a bound (a probe retried instead of a sleep), and
 * checking that a change made through another process is seen at once.
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
 * Reads what a change made through another process should show: the next read must show it, on
 * both databases (SQLite reads the change stamp as each request starts; on PostgreSQL each request
 * first hears every commit made before it arrived, docs/architecture.md "Caches across
 * processes"). Returns that read; throws `what` otherwise.
 */
export async function seenAcross<T>(_dialect: 'sqlite' | 'postgres', what: string, read: () => Promise<T>, shows: (value: T) => boolean): Promise<T> {
  const seen = await read();
  if (!shows(seen)) throw new Error(`${what}: not shown by the next request (${JSON.stringify(seen)})`);
  return seen;
}
