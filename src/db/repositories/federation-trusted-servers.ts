/** SQL for the trusted servers of federation (migration 0900). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class FederationTrustedServersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(): Promise<string[]> {
    const rows = await this.db.selectFrom('federation_trusted_servers').select('server').orderBy('server').execute();
    return rows.map((r) => r.server);
  }

  /** Every row with its id (the admin API names a server by id), by server name. */
  async entries(): Promise<Array<{ id: number; server: string }>> {
    const rows = await this.db.selectFrom('federation_trusted_servers').select(['id', 'server']).orderBy('server').execute();
    return rows.map((r) => ({ id: Number(r.id), server: r.server }));
  }

  async has(server: string): Promise<boolean> {
    const row = await this.db.selectFrom('federation_trusted_servers').select('id').where('server', '=', server).executeTakeFirst();
    return row !== undefined;
  }

  /** The new row's id, or undefined when listed already. One statement: the unique column decides. */
  async add(server: string, now: number): Promise<number | undefined> {
    const row = await this.db
      .insertInto('federation_trusted_servers')
      .values({ server, created_at: now })
      .onConflict((oc) => oc.column('server').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.id);
  }

  async remove(server: string): Promise<boolean> {
    const res = await this.db.deleteFrom('federation_trusted_servers').where('server', '=', server).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** The removed row's server, or undefined when no row has this id. */
  async removeById(id: number): Promise<string | undefined> {
    const row = await this.db.deleteFrom('federation_trusted_servers').where('id', '=', id).returning('server').executeTakeFirst();
    return row?.server;
  }
}
