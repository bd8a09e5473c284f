/**
 * One typed event bus for "this happened" (docs/design.md#shape-of-the-code): an area announces a change once, and
 * every area that follows it subscribes in `services/subscribers.ts`, the one file that lists who listens
 * to what. Emitters do not know their subscribers; subscribers do not reach into emitters.
 *
 * Handlers run in subscription order and are awaited one after another, so an emitter can rely on
 * them having finished (a user's conversations are cleaned up before the account row goes).
 * An event whose payload carries `trx` is emitted inside the emitter's transaction: its handlers
 * must write through that transaction (atomic with the change, e.g. a chat system message) and
 * must not talk to the outside world. Events without `trx` are emitted after the change has
 * committed; handlers that send mail, notify a signaling server or wake long-polls belong there.
 */
import type { EventMap } from './event-map.js';

export type EventName = keyof EventMap;
export type EventHandler<K extends EventName> = (payload: EventMap[K]) => void | Promise<void>;

export class EventBus {
  private readonly handlers = new Map<EventName, Array<EventHandler<never>>>();

  /** Adds a handler; called only from `services/subscribers.ts` while the services are built. */
  on<K extends EventName>(name: K, handler: EventHandler<K>): void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as EventHandler<never>);
    this.handlers.set(name, list);
  }

  /** Runs every handler of `name` in order; the first failure propagates to the emitter. */
  async emit<K extends EventName>(name: K, payload: EventMap[K]): Promise<void> {
    const list = this.handlers.get(name);
    if (!list) return;
    for (const handler of list) await (handler as EventHandler<K>)(payload);
  }

  /** The names that have at least one subscriber (for the architecture doc and tests). */
  subscribedEvents(): EventName[] {
    return [...this.handlers.keys()];
  }
}
