/** SQL for Login Flow v2 / v1 rows (table `login_flows`). Every state change is one conditional statement. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, LoginFlowsTable } from '../schema.js';

export type LoginFlowRow = Selectable<LoginFlowsTable>;

export class LoginFlowsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: LoginFlowRow): Promise<void> {
    await this.db.insertInto('login_flows').values(row).execute();
  }

  /** Removes flows created before `cutoff` (expired). */
  async deleteCreatedBefore(cutoff: number): Promise<void> {
    await this.db.deleteFrom('login_flows').where('created_at', '<', cutoff).execute();
  }

  /** Marks a v2 flow as opened in a browser and binds it to a state token: only the first opener wins. */
  async start(loginToken: string, stateHash: string, cutoff: number): Promise<boolean> {
    const r = await this.db
      .updateTable('login_flows')
      .set({ started: 1, state_hash: stateHash })
      .where('login_token', '=', loginToken)
      .where('kind', '=', 'v2')
      .where('started', '=', 0)
      .where('created_at', '>=', cutoff)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  findByState(stateHash: string, cutoff: number): Promise<LoginFlowRow | undefined> {
    return this.db.selectFrom('login_flows').selectAll().where('state_hash', '=', stateHash).where('created_at', '>=', cutoff).executeTakeFirst();
  }

  /** Records who logged in on this flow (before the grant). Not once the flow is granted. */
  async setUser(loginToken: string, userId: string): Promise<void> {
    await this.db.updateTable('login_flows').set({ user_id: userId }).where('login_token', '=', loginToken).where('sealed_app_password', 'is', null).execute();
  }

  /** Stores the sealed app password once; false when the flow was already granted or is gone. */
  async grant(loginToken: string, userId: string, server: string, sealed: string): Promise<boolean> {
    const r = await this.db
      .updateTable('login_flows')
      .set({ sealed_app_password: sealed, server })
      .where('login_token', '=', loginToken)
      .where('user_id', '=', userId)
      .where('sealed_app_password', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Deletes the flow and returns it, in one statement: whoever deletes it owns the result. */
  takeGranted(pollHash: string, cutoff: number): Promise<LoginFlowRow | undefined> {
    return this.db
      .deleteFrom('login_flows')
      .where('poll_token_hash', '=', pollHash)
      .where('sealed_app_password', 'is not', null)
      .where('created_at', '>=', cutoff)
      .returningAll()
      .executeTakeFirst();
  }

  /** Ends a flow (v1 completion); true only for the one caller that removed the row. */
  async finish(loginToken: string, userId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('login_flows').where('login_token', '=', loginToken).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
