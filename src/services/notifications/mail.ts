/**
 * Outgoing mail (docs/api.md "Participants and sessions"), through the one outbox
 * (docs/design.md#files-push-and-federation): `send` writes a row of topic `mail` and returns; the
 * outbox worker hands it to SMTP (nodemailer) when SMTP_URL is set, so a slow or absent SMTP
 * server never delays the request that invites someone. A refusal or an unreachable server is
 * tried again with the outbox's back-off, MAIL_TRIES times; then, and always without SMTP_URL,
 * the message is kept in the `mail_outbox` table and a log line names the recipient, so nothing
 * is lost on a laptop. Bodies are never logged (an invitation carries a dial-in PIN); the SMTP
 * URL is never logged (it may carry a password).
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailOutboxRepository } from '../../db/repositories/mail-outbox.js';
import type { OutboxRepository, OutboxRow } from '../../db/repositories/outbox.js';
import type { Settings } from '../../settings.js';
import { nowSeconds } from '../../domain/time.js';
import type { OutboxHandler, OutboxResult } from '../outbox/worker.js';
import type { OutboxSignal } from '../outbox/signal.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface MailLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export const MAIL_TOPIC = 'mail';
/** Tries over SMTP before a message is kept in `mail_outbox` instead (about half a minute of back-off). */
export const MAIL_TRIES = 5;

export class MailService implements OutboxHandler {
  readonly topic = MAIL_TOPIC;
  private transporter?: Transporter;

  constructor(
    private readonly settings: Settings,
    private readonly kept: MailOutboxRepository,
    private readonly outbox: OutboxRepository,
    private readonly signal: OutboxSignal,
    /** The process logger (src/log.ts): the server's request log under `serve`, stderr for commands. */
    private readonly log: MailLogger,
  ) {}

  /** Queues one message for delivery (the outbox worker sends it after this returns). */
  async send(msg: MailMessage): Promise<void> {
    const payload = JSON.stringify({ to: msg.to, subject: msg.subject, text: msg.text });
    await this.outbox.insert([{ topic: MAIL_TOPIC, destination: 'smtp', dedupe_key: null, payload, created_at: nowSeconds() }]);
    this.signal.kick();
  }

  /** The outbox handler of topic `mail`: each row over SMTP, or kept. */
  async deliver(rows: OutboxRow[]): Promise<Map<number, OutboxResult>> {
    const results = new Map<number, OutboxResult>();
    for (const row of rows) results.set(Number(row.id), await this.deliverOne(row));
    return results;
  }

  private async deliverOne(row: OutboxRow): Promise<OutboxResult> {
    const msg = JSON.parse(row.payload) as MailMessage;
    if (this.settings.smtpUrl) {
      try {
        this.transporter ??= nodemailer.createTransport(this.settings.smtpUrl);
        await this.transporter.sendMail({ from: this.settings.mailFrom, to: msg.to, subject: msg.subject, text: msg.text });
        this.log.info({ to: msg.to, subject: msg.subject }, 'mail sent');
        return 'sent';
      } catch (err) {
        const error = (err as Error)?.message ?? 'unknown';
        if (row.attempts < MAIL_TRIES) {
          this.log.warn({ to: msg.to, subject: msg.subject, error, attempt: row.attempts }, 'mail could not be sent over SMTP; will try again');
          return 'retry';
        }
        this.log.warn({ to: msg.to, subject: msg.subject, error }, 'mail could not be sent over SMTP; kept in the outbox');
        await this.keep(msg);
        return 'drop';
      }
    }
    await this.keep(msg);
    this.log.info({ to: msg.to, subject: msg.subject }, 'mail written to the outbox (no SMTP_URL)');
    return 'sent';
  }

  /** Kept in `mail_outbox` for the operator, when it cannot be (or was not) sent. */
  private keep(msg: MailMessage): Promise<void> {
    return this.kept.insert(msg.to, msg.subject, msg.text, nowSeconds());
  }

  /**
   * The setup check (`parley doctor`): connects to SMTP_URL, greets and logs in as a delivery
   * would, within `timeoutMs`; throws what went wrong. Undefined when no SMTP_URL is set.
   */
  async verify(timeoutMs = 5000): Promise<true | undefined> {
    if (!this.settings.smtpUrl) return undefined;
    const probe = nodemailer.createTransport({
      url: this.settings.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    try {
      await probe.verify();
      return true;
    } finally {
      probe.close();
    }
  }

  close(): void {
    this.transporter?.close();
  }
}
