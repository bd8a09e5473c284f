/**
 * The ordered list of migrations. Each capability adds its own file and one line here;
 * names sort in the order they must run. Never edit a migration that has shipped: add one.
 */
import type { ParleyMigration } from './helpers.js';
import { foundation } from './0001-foundation.js';

export const migrations: ParleyMigration[] = [
  foundation,
];
