/** SQL for the trusted servers of federation (migration 0900). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class FederationTrustedServersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(): Promise<string[]> {
    const rows = await this.db.selectFrom('federation_trusted_servers').select('server').orderBy('server').execute();
    return rows.map((r) => r.server);
  }

  async has(server: string): Promise<boolean> {
    const row = await this.db.selectFrom('federation_trusted_servers').select('id').where('server', '=', server).executeTakeFirst();
    return row !== undefined;
  }

  /** Whether it was added (false: listed already). One statement: the unique column decides. */
  async add(server: string, now: number): Promise<boolean> {
    const res = await this.db
      .insertInto('federation_trusted_servers')
      .values({ server, created_at: now })
      .onConflict((oc) => oc.column('server').doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async remove(server: string): Promise<boolean> {
    const res = await this.db.deleteFrom('federation_trusted_servers').where('server', '=', server).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
