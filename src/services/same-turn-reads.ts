/**
 * Shares identical reads started in the same turn of the event loop. A chat wake-up releases
 * every long-poll of a room in one turn (db/wake.ts fires all of a channel's listeners at once),
 * and each would run the same "messages after n" query and the same common-read aggregate; with
 * this they run once per wake-up instead of once per waiter (docs/benchmarks.md, chat long-poll).
 *
 * Safe for wake-ups: a read is shared only within the turn it started in, i.e. only by callers
 * that asked for it after that turn began — after their own wake-up — so none gets an answer
 * older than the change that woke it. Likewise for requests arriving together (a room's
 * members polling again after a wake-up): a shared read started after each of them arrived.
 */
export class SameTurnReads {
  private readonly pending = new Map<string, Promise<unknown>>();

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.pending.get(key);
    if (hit) return hit as Promise<T>;
    const p = load();
    this.pending.set(key, p);
    setImmediate(() => this.pending.delete(key));
    return p;
  }
}
