/** SQL for app config values and the cache generation that tells processes to reload. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { compiledRead } from '../database.js';

export class AppConfigRepository {
  /** Read on every request (AppConfigService.snapshot), hence compiled once. */
  private readonly generationRead;

  constructor(private readonly db: Kysely<Database>) {
    this.generationRead = compiledRead(db, db.selectFrom('cache_state').select('generation').where('id', '=', 1), { table: 'cache_state' });
  }

  async all(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('app_config').select(['key', 'value']).execute();
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  async generation(): Promise<number> {
    const [row] = await this.generationRead([1]);
    return Number(row?.generation ?? 0);
  }

  /** Writes (or deletes, for value undefined) keys and bumps the generation, in one transaction. */
  async write(changes: Array<{ key: string; value: string | undefined }>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const { key, value } of changes) {
        if (value === undefined) {
          await trx.deleteFrom('app_config').where('key', '=', key).execute();
        } else {
          await trx
            .insertInto('app_config')
            .values({ key, value })
            .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
            .execute();
        }
      }
      await trx
        .updateTable('cache_state')
        .set((eb) => ({ generation: eb('generation', '+', 1) }))
        .where('id', '=', 1)
        .execute();
    });
  }

  /**
   * Stores keys that have no value yet and bumps the generation when one was stored; a key some
   * other process stored first keeps its value (generated secrets: the database decides the winner).
   */
  async insertMissing(values: Array<{ key: string; value: string }>): Promise<void> {
    if (values.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('app_config')
        .values(values)
        .onConflict((oc) => oc.column('key').doNothing())
        .returning('key')
        .execute();
      if (inserted.length === 0) return;
      await trx
        .updateTable('cache_state')
        .set((eb) => ({ generation: eb('generation', '+', 1) }))
        .where('id', '=', 1)
        .execute();
    });
  }
}
