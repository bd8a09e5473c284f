/**
 * Mail (docs/api.md "Participants and sessions"): queued in the one outbox, then SMTP when
 * SMTP_URL is set (tried again while it fails), otherwise kept in the mail_outbox table.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, startParley, type Parley } from './helpers/parley.js';
import { startSmtp, type SmtpSink } from './helpers/smtp.js';
import { eventually } from './helpers/eventually.js';
import { MailOutboxRepository } from '../src/db/repositories/mail-outbox.js';
import { loadSettings, SettingsError } from '../src/settings.js';

for (const dialect of dialects()) {
  describe(`mail over SMTP [${dialect}]`, () => {
    let p: Parley;
    let smtp: SmtpSink;
    before(async () => {
      smtp = await startSmtp();
      p = await startParley(dialect, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'talk@parley.test' } });
    });
    after(async () => {
      p.services.mail.close();
      await p.close();
      await smtp.close();
    });

    it('delivers to the SMTP server with sender, recipient, subject and body', async () => {
      await p.services.mail.send({ to: 'guest@example.com', subject: 'Hello there', text: 'Join at https://example.com/call/abc ünïcode' });
      const [m] = await smtp.waitFor(1);
      assert.equal(m.from, 'talk@parley.test');
      assert.deepEqual(m.to, ['guest@example.com']);
      assert.match(m.text, /Subject: Hello there/);
      assert.match(m.text, /https:\/\/example\.com\/call\/abc ünïcode/);
      assert.equal((await new MailOutboxRepository(p.services.db.kysely).list()).length, 0);
      await eventually('the outbox row is gone once sent', async () => (await p.services.repos.outbox.pending()).length === 0);
    });
  });

  describe(`mail while the SMTP server is down [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      // Nothing listens on port 9 (discard): every try fails to connect.
      p = await startParley(dialect, { env: { SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'talk@parley.test' } });
    });
    after(async () => {
      p.services.mail.close();
      await p.close();
    });

    it('sending does not wait for SMTP; the message stays in the outbox to be tried again', async () => {
      const started = Date.now();
      await p.services.mail.send({ to: 'later@example.com', subject: 'S', text: 'body' });
      assert.ok(Date.now() - started < 1000, 'queued, not sent, by the caller');
      await eventually('the first try failed and another is planned', async () => {
        const [row] = await p.services.db.kysely.selectFrom('outbox').selectAll().where('topic', '=', 'mail').execute();
        return row !== undefined && row.attempts >= 1 && row.claimed_by === null;
      });
      assert.equal((await new MailOutboxRepository(p.services.db.kysely).list()).length, 0, 'not given up yet');
    });
  });

  describe(`mail without SMTP [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect);
    });
    after(async () => p.close());

    it('keeps the message in the mail_outbox table', async () => {
      await p.services.mail.send({ to: 'x@example.com', subject: 'S', text: 'body' });
      await eventually('kept', async () => (await new MailOutboxRepository(p.services.db.kysely).list()).length > 0);
      const rows = await new MailOutboxRepository(p.services.db.kysely).list();
      assert.equal(rows.length, 1);
      assert.equal(rows[0].recipient, 'x@example.com');
      assert.equal(rows[0].body, 'body');
    });
  });
}

describe('mail settings', () => {
  it('SMTP_URL must be smtp(s) and is never echoed; MAIL_FROM must be an address', () => {
    assert.throws(
      () => loadSettings({ SMTP_URL: 'http://user:hunter2@x' }),
      (e: Error) => e instanceof SettingsError && !e.message.includes('hunter2'),
    );
    assert.throws(
      () => loadSettings({ SMTP_URL: 'not a url hunter2' }),
      (e: Error) => e instanceof SettingsError && !e.message.includes('hunter2'),
    );
    assert.throws(() => loadSettings({ MAIL_FROM: 'nobody' }), SettingsError);
    assert.equal(loadSettings({ SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl, 'smtps://u:p@mail.example.com:465');
    assert.equal(loadSettings({ BASE_URL: 'https://talk.example.org' }).mailFrom, 'parley@talk.example.org');
  });
});
