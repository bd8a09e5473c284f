/** SQL for the mail outbox (mail kept when no SMTP server is configured). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, MailOutboxTable } from '../schema.js';

export type OutboxRow = Selectable<MailOutboxTable>;

export class MailOutboxRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(recipient: string, subject: string, body: string, now: number): Promise<void> {
    await this.db.insertInto('mail_outbox').values({ recipient, subject, body, created_at: now }).execute();
  }

  /** Newest first. */
  list(limit = 100): Promise<OutboxRow[]> {
    return this.db.selectFrom('mail_outbox').selectAll().orderBy('id', 'desc').limit(limit).execute();
  }
}
