/**
 * Setup checks (docs/operators.md "parley doctor"): `parley doctor` and the admin page's
 * GET /settings/ajax/checksetup check a deployment for real. A healthy one (Parley as the docs set
 * it up, a real SMTP listener, Debian's signaling server with Parley as its backend) passes with
 * exit code 0; a misconfigured one (a signaling server that knows Parley under another name, an
 * SMTP port nobody listens on, a BASE_URL nobody answers at) fails with exit code 1 and names
 * each finding with its fix.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, call, createUser, dialects, freePort, startParley, type Parley } from './helpers/parley.js';
import { runCli } from './helpers/cli.js';
import { startSmtp, type SmtpSink } from './helpers/smtp.js';
import { missingHpb, startHpb, type Hpb } from './helpers/hpb.js';

const SECRET = 'doctor-shared-secret';

interface Check {
  id: string;
  status: string;
  message: string;
  fix?: string;
}

for (const dialect of dialects()) {
  describe(`parley doctor [${dialect}]`, { skip: missingHpb }, () => {
    let p: Parley;
    let hpb: Hpb | undefined;
    let wrongName: Hpb | undefined;
    let smtp: SmtpSink | undefined;
    /** The CLI's settings: the running server's own (its address is the one HOST and PORT name). */
    let env: Record<string, string>;

    before(async () => {
      p = await startParley(dialect);
      env = { ...p.env, HOST: '127.0.0.1', PORT: new URL(p.url).port, LOG_LEVEL: 'silent' };
      hpb = await startHpb(p.url, SECRET);
      wrongName = await startHpb(p.url.replace('127.0.0.1', 'localhost'), SECRET);
      smtp = await startSmtp();
      await createUser(p, 'alice');
      await p.services.appConfig.set('stun_servers', ['127.0.0.1:3478']);
      await p.services.appConfig.set('turn_servers', [{ schemes: 'turn', server: '127.0.0.1:3478', secret: 'turn-secret', protocols: 'udp,tcp' }]);
    });

    after(async () => {
      await p?.services.signalingNotifier.idle();
      await hpb?.stop();
      await wrongName?.stop();
      await smtp?.close();
      await p?.close();
    });

    const doctor = async (extra: Record<string, string> = {}) => {
      const r = await runCli({ ...env, ...extra }, ['doctor', '--output', 'json']);
      return { ...r, checks: JSON.parse(r.stdout) as Check[] };
    };
    const byId = (checks: Check[], id: string) => checks.find((c) => c.id === id) ?? assert.fail(`no check ${id} in ${JSON.stringify(checks)}`);

    it('a healthy deployment passes: every check ok, the signaling server through a real round trip', async () => {
      await p.services.serverLists.addServer('signaling_servers', hpb!.url.replace(/^http/, 'ws'), SECRET, true);
      const r = await doctor({ SMTP_URL: smtp!.url });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      for (const id of ['address', 'trusted-domains', 'database', 'data-directory', 'mail', 'stun-turn', 'signaling:0']) {
        assert.equal(byId(r.checks, id).status, 'ok', JSON.stringify(byId(r.checks, id)));
      }
      assert.match(byId(r.checks, 'signaling:0').message, /confirms a client hello/);
      // Without BASE_URL the address comes from HOST and PORT: a warning with its fix, not a failure.
      assert.equal(byId(r.checks, 'base-url').status, 'warning');
      assert.match(byId(r.checks, 'base-url').fix!, /Set BASE_URL/);
      // The plain output names each finding.
      const plain = await runCli({ ...env, SMTP_URL: smtp!.url }, ['doctor']);
      assert.equal(plain.code, 0);
      assert.match(plain.stdout, /^\[ok\] Database: /m);
      assert.match(plain.stdout, /^\[WARNING\] BASE_URL: .*\n {4}fix: Set BASE_URL/m);
    });

    it('a misconfigured deployment fails with exit code 1 and says how to fix each finding', async () => {
      await p.services.serverLists.addServer('signaling_servers', wrongName!.url.replace(/^http/, 'ws'), SECRET, true);
      const closed = await freePort();
      const r = await doctor({ SMTP_URL: `smtp://127.0.0.1:${closed}` });
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, /^error: 2 checks failed/m);
      assert.equal(byId(r.checks, 'signaling:0').status, 'ok');
      const signaling = byId(r.checks, 'signaling:1');
      assert.equal(signaling.status, 'error');
      assert.match(signaling.message, /invalid_backend/);
      assert.ok(signaling.fix!.includes(`backend's url must be ${p.url}/`), signaling.fix);
      const mail = byId(r.checks, 'mail');
      assert.equal(mail.status, 'error');
      assert.match(mail.fix!, /SMTP_URL/);

      // An address nobody answers at.
      const elsewhere = await doctor({ BASE_URL: `http://127.0.0.1:${closed}`, SMTP_URL: smtp!.url });
      assert.equal(elsewhere.code, 1);
      const address = byId(elsewhere.checks, 'address');
      assert.equal(address.status, 'error');
      assert.match(address.fix!, /BASE_URL/);
    });

    it('the admin page reads the same checks; others may not', async () => {
      const res = await fetch(`${p.url}/settings/ajax/checksetup`, {
        headers: { Authorization: 'Basic ' + Buffer.from(`${admin.user}:${admin.password}`).toString('base64') },
      });
      assert.equal(res.status, 200);
      const { checks } = (await res.json()) as { checks: Check[] };
      assert.equal(byId(checks, 'database').status, 'ok');
      assert.equal(byId(checks, 'signaling:1').status, 'error');
      assert.equal((await fetch(`${p.url}/settings/ajax/checksetup`)).status, 401);
      const alice = as('alice');
      const asAlice = await fetch(`${p.url}/settings/ajax/checksetup`, {
        headers: { Authorization: 'Basic ' + Buffer.from(`${alice.user}:${alice.password}`).toString('base64') },
      });
      assert.equal(asAlice.status, 403);
      // The OCS API is untouched by the checks.
      assert.equal((await call(p, 'GET', '/cloud/capabilities', { as: admin })).status, 200);
    });
  });
}
