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
}
