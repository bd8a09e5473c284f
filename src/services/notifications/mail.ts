/**
 * Outgoing mail (docs/api.md "Participants and sessions"). With SMTP_URL set, mail goes out
 * through nodemailer; without it (or when the SMTP server refuses), the message is written to the
 * `mail_outbox` table and a log line names the recipient, so nothing is lost on a laptop. Bodies
 * are never logged (an invitation carries a dial-in PIN); the SMTP URL is never logged (it may
 * carry a password).
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailOutboxRepository } from '../../db/repositories/mail-outbox.js';
import type { Settings } from '../../settings.js';
import { nowSeconds } from '../../domain/time.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface MailLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export type Delivery = 'smtp' | 'outbox';

export class MailService {
  private transporter?: Transporter;

  constructor(
    private readonly settings: Settings,
    private readonly outbox: MailOutboxRepository,
    /** The process logger (src/log.ts): the server's request log under `serve`, stderr for commands. */
    private readonly log: MailLogger,
  ) {}

  /** Sends one message; never throws for delivery problems (the outbox keeps it). */
  async send(msg: MailMessage): Promise<Delivery> {
    if (this.settings.smtpUrl) {
      try {
        this.transporter ??= nodemailer.createTransport(this.settings.smtpUrl);
        await this.transporter.sendMail({ from: this.settings.mailFrom, to: msg.to, subject: msg.subject, text: msg.text });
        this.log.info({ to: msg.to, subject: msg.subject }, 'mail sent');
        return 'smtp';
      } catch (err) {
        this.log.warn(
          { to: msg.to, subject: msg.subject, error: (err as Error)?.message ?? 'unknown' },
          'mail could not be sent over SMTP; kept in the outbox',
        );
      }
    }
    await this.outbox.insert(msg.to, msg.subject, msg.text, nowSeconds());
    this.log.info({ to: msg.to, subject: msg.subject }, 'mail written to the outbox (no SMTP_URL)');
    return 'outbox';
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
