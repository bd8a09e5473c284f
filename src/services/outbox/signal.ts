/**
 * "The outbox may have new rows": a change that owes deliveries (written to the outbox in its
 * transaction) says so here after commit, and this process's outbox worker drains. Built before
 * the services that write, so they and the worker can be given the same one.
 */
export class OutboxSignal {
  private readonly listeners: Array<() => void> = [];

  /** Called by the worker when it is built. */
  listen(fn: () => void): void {
    this.listeners.push(fn);
  }

  kick(): void {
    for (const fn of this.listeners) fn();
  }

  /**
   * For a writer inside a transaction that is still open (an event handler writing through the
   * emitter's transaction): drains a moment later, once the transaction has most likely
   * committed; rows it misses are found by the next drain or the periodic sweep.
   */
  kickSoon(ms = 250): void {
    setTimeout(() => this.kick(), ms).unref();
  }
}
