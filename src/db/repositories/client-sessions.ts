/** SQL for cookie ("client") sessions and what they remember per conversation token. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { CookieLogin } from '../../domain/cookie-login.js';

export interface ClientRoomEntry {
  clientSessionId: number;
  sessionId: string | null;
  guestActorId: string | null;
}

export class ClientSessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The client session for a cookie hash, created when missing; returns its id. `login`: a
   * user's join binds the cookie session to the login it was made with (replacing an earlier one).
   */
  async ensure(keyHash: string, now: number, login?: CookieLogin): Promise<number> {
    const row = await this.db
      .insertInto('client_sessions')
      .values({ key_hash: keyHash, created_at: now, last_seen: now, ...login })
      .onConflict((oc) => oc.column('key_hash').doUpdateSet({ last_seen: now, ...login }))
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** What the cookie session remembers for a token (one query); undefined when nothing. */
  async entry(keyHash: string, token: string, tabId: string): Promise<ClientRoomEntry | undefined> {
    const row = await this.db
      .selectFrom('client_sessions as c')
      .innerJoin('client_room_sessions as r', 'r.client_session_id', 'c.id')
      .select(['c.id as clientSessionId', 'r.session_id as sessionId', 'r.guest_actor_id as guestActorId'])
      .where('c.key_hash', '=', keyHash)
      .where('r.token', '=', token)
      .where('r.tab_id', '=', tabId)
      .executeTakeFirst();
    return row ? { clientSessionId: Number(row.clientSessionId), sessionId: row.sessionId, guestActorId: row.guestActorId } : undefined;
  }

  /** Remembers the session id (and guest actor id) for a token. */
  async remember(clientSessionId: number, token: string, tabId: string, sessionId: string | null, guestActorId: string | null): Promise<void> {
    await this.db
      .insertInto('client_room_sessions')
      .values({ client_session_id: clientSessionId, token, tab_id: tabId, session_id: sessionId, guest_actor_id: guestActorId })
      .onConflict((oc) => oc.columns(['client_session_id', 'token', 'tab_id']).doUpdateSet({ session_id: sessionId, guest_actor_id: guestActorId }))
      .execute();
  }

  /**
   * Compare-and-swap of the remembered session (join): succeeds only if the entry still holds
   * `expected` (null = none), so of two joins racing on one cookie session exactly one wins, in
   * any number of processes.
   */
  async claim(clientSessionId: number, token: string, tabId: string, expected: string | null, next: string, guestActorId: string | null): Promise<boolean> {
    const ins = await this.db
      .insertInto('client_room_sessions')
      .values({ client_session_id: clientSessionId, token, tab_id: tabId, session_id: next, guest_actor_id: guestActorId })
      .onConflict((oc) => oc.columns(['client_session_id', 'token', 'tab_id']).doNothing())
      .executeTakeFirst();
    if (Number(ins.numInsertedOrUpdatedRows ?? 0) > 0) return true;
    const upd = await this.db
      .updateTable('client_room_sessions')
      .set({ session_id: next, guest_actor_id: guestActorId })
      .where('client_session_id', '=', clientSessionId)
      .where('token', '=', token)
      .where('tab_id', '=', tabId)
      .where((eb) => (expected === null ? eb('session_id', 'is', null) : eb('session_id', '=', expected)))
      .executeTakeFirst();
    return Number(upd.numUpdatedRows) > 0;
  }

  /** Forgets the session id for a token (leave); the guest actor id stays for a later re-join. */
  async forgetSession(keyHash: string, token: string, tabId: string): Promise<void> {
    await this.db
      .updateTable('client_room_sessions')
      .set({ session_id: null })
      .where('token', '=', token)
      .where('tab_id', '=', tabId)
      .where('client_session_id', 'in', (eb) => eb.selectFrom('client_sessions').select('id').where('key_hash', '=', keyHash))
      .execute();
  }

  /** Drops cookie sessions not used since `before` (cleanup job). Returns how many. */
  async prune(before: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('client_room_sessions')
        .where('client_session_id', 'in', (eb) => eb.selectFrom('client_sessions').select('id').where('last_seen', '<', before))
        .execute();
      const res = await trx.deleteFrom('client_sessions').where('last_seen', '<', before).executeTakeFirst();
      return Number(res.numDeletedRows);
    });
  }
}
