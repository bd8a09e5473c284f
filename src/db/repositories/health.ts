/** The database's own health for the setup checks (`parley doctor`): one trivial round trip. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class HealthRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Sends `select 1`; throws what the driver throws when the database does not answer. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }
}
