/**
 * Shares identical reads asked together. A chat wake-up releases every long-poll of a room in one
 * turn (cache/wake.ts fires all of a channel's listeners at once), and each would run the same
 * "messages after n" query and the same common-read aggregate; a room's members polling again
 * after it ask the same "does message n exist". With this they run once per batch instead of once
 * per waiter (docs/benchmarks.md, chat long-poll).
 *
 * The read is one TurnBatch statement (turn-batch.ts): sent in the check phase of the turn it was
 * first asked in, or after the key's previous read finishes, and always after every caller
 * sharing it asked, so none gets an answer older than its own wake-up or arrival.
 */
import { TurnBatch } from './turn-batch.js';

export class SameTurnReads {
  /** The load of each key's batch not yet sent (identical loads: the first caller's is used). */
  private readonly loads = new Map<string, () => Promise<unknown>>();
  private readonly batches = new TurnBatch<null, unknown>(async (key) => {
    const load = this.loads.get(key)!;
    this.loads.delete(key);
    return new Map([[null, await load()]]);
  });

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.loads.has(key)) this.loads.set(key, load);
    return this.batches.get(key, null) as Promise<T>;
  }
}
