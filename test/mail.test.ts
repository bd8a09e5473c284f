/** Mail (docs/api.md "Participants and sessions"): SMTP when SMTP_URL is set, otherwise the outbox table. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, startParley, type Parley } from './helpers/parley.js';
import { startSmtp, type SmtpSink } from './helpers/smtp.js';
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
      const how = await p.services.mail.send({ to: 'guest@example.com', subject: 'Hello there', text: 'Join at https://example.com/call/abc ünïcode' });
      assert.equal(how, 'smtp');
      const [m] = await smtp.waitFor(1);
      assert.equal(m.from, 'talk@parley.test');
      assert.deepEqual(m.to, ['guest@example.com']);
      assert.match(m.text, /Subject: Hello there/);
      assert.match(m.text, /https:\/\/example\.com\/call\/abc ünïcode/);
      assert.equal((await new MailOutboxRepository(p.services.db.kysely).list()).length, 0);
    });
  });

  describe(`mail without SMTP [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect);
    });
    after(async () => p.close());

    it('keeps the message in the outbox', async () => {
      assert.equal(await p.services.mail.send({ to: 'x@example.com', subject: 'S', text: 'body' }), 'outbox');
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
