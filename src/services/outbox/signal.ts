/**
 * "The outbox may have new rows": a change that owes deliveries (written to the outbox in its
 * transaction) says so here after commit, and this process's outbox worker drains. Built before
 * the services that write, so they and the worker can be given the same one.
 */
export class OutboxSignal {
  private readonly listeners: Array<() => void> = [];
  private readonly idlers: Array<() => Promise<void>> = [];

  /** Called by the worker when it is built: `kick` starts a drain, `idle` waits for the one in progress. */
  listen(kick: () => void, idle?: () => Promise<void>): void {
    this.listeners.push(kick);
    if (idle) this.idlers.push(idle);
  }

  kick(): void {
    for (const fn of this.listeners) fn();
  }

  /** Resolves once the worker's drain in progress (if any) has ended (tests, shutdown). */
  async idle(): Promise<void> {
    for (const fn of this.idlers) await fn();
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
