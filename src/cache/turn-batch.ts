/**
 * Gathers calls that ask the same kind of thing and answers them with one statement. A burst of
 * requests arriving together (thousands of long-polls opening at once, a room's members polling
 * again after a wake-up) then costs a statement per batch instead of one per request: on
 * PostgreSQL each statement is a round trip through a pool of a few connections, and the burst
 * otherwise queues for them (docs/benchmarks.md "Chat long-poll scale").
 *
 * A key's batch is sent in the check phase (`setImmediate`) of the turn of the event loop it was
 * opened in, or, while the key's previous batch still runs, as soon as that one has finished: the
 * slower the database answers, the more callers each statement serves, and a key never has more
 * than one statement under way.
 *
 * Fresh by construction: a batch is sent after every call it answers was made, so each caller
 * sees every commit made before it asked (unlike joining a read already under way).
 */
interface Open<A, R> {
  args: Set<A>;
  done: Promise<Map<A, R>>;
}

export class TurnBatch<A, R> {
  /** Batches not yet sent, by key. */
  private readonly open = new Map<string, Open<A, R>>();
  /** The batch under way, by key (the next one is sent after it). */
  private readonly running = new Map<string, Promise<unknown>>();

  /**
   * @param run answers the distinct `args` of one key's batch: a value per argument (an argument
   *   missing from the map gets `undefined`)
   * @param gather false: every call is sent at once on its own (where a statement is not a round
   *   trip, SQLite: waiting for the check phase would cost more than the statement)
   */
  constructor(
    private readonly run: (key: string, args: A[]) => Promise<Map<A, R>>,
    private readonly gather = true,
  ) {}

  /** `arg`'s answer, from the next batch of `key` to be sent. */
  async get(key: string, arg: A): Promise<R | undefined> {
    if (!this.gather) return (await this.run(key, [arg])).get(arg);
    let batch = this.open.get(key);
    if (batch === undefined) batch = this.openBatch(key);
    batch.args.add(arg);
    return (await batch.done).get(arg);
  }

  private openBatch(key: string): Open<A, R> {
    const previous = this.running.get(key);
    const b: Open<A, R> = { args: new Set(), done: Promise.resolve(new Map()) };
    b.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => previous?.catch(() => undefined))
      .then(() => {
        this.open.delete(key);
        const sent = this.run(key, [...b.args]);
        this.running.set(key, sent);
        const forget = () => {
          if (this.running.get(key) === sent) this.running.delete(key);
        };
        sent.then(forget, forget);
        return sent;
      });
    this.open.set(key, b);
    return b;
  }
}
