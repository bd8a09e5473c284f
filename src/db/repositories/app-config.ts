/** SQL for app config values and the cache generation that tells processes to reload. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { compiledRead } from '../database.js';

export class AppConfigRepository {
  /** Read on every request (AppConfigService.snapshot), hence compiled once. */
  private readonly generationRead;

  constructor(private readonly db: Kysely<Database>) {
    this.generationRead = compiledRead(db, db.selectFrom('cache_state').select('generation').where('id', '=', 1));
  }

  async all(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('app_config').select(['key', 'value']).execute();
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  async generation(): Promise<number> {
    const [row] = await this.generationRead([1]);
    return Number(row?.generation ?? 0);
  }

  /**
   * Stores values only for keys that have none yet (one statement per key, so two processes
   * starting at once keep the same first value); bumps the generation when something was stored.
   */
  async insertMissing(values: Array<{ key: string; value: string }>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      let stored = 0;
      for (const v of values) {
        const r = await trx.insertInto('app_config').values(v).onConflict((oc) => oc.column('key').doNothing()).executeTakeFirst();
        stored += Number(r.numInsertedOrUpdatedRows ?? 0n);
      }
      if (stored > 0) {
        await trx
          .updateTable('cache_state')
          .set((eb) => ({ generation: eb('generation', '+', 1) }))
          .where('id', '=', 1)
          .execute();
      }
    });
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
}
