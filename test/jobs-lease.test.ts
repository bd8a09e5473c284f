/** Job leases: however many processes try, each scheduled run happens exactly once. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openServices } from '../src/boot.js';
import { loadSettings } from '../src/settings.js';
import { runJobIfDue, jobStates, type JobDef } from '../src/jobs/index.js';
import type { Services } from '../src/services/index.js';
import { dialects, startParley, type Parley } from './helpers/parley.js';

const runs: number[] = [];
const job: JobDef = {
  name: 'test-lease-probe',
  intervalSeconds: 1,
  description: 'test job counting its runs',
  async run(_s, now) {
    runs.push(now);
    return `run ${runs.length}`;
  },
};

for (const dialect of dialects()) {
  describe(`job leases [${dialect}]`, () => {
    let p: Parley;
    let second: Services;
    before(async () => {
      p = await startParley(dialect);
      // A second, independent service container on the same database (as another process has).
      second = await openServices(loadSettings({ ...p.env, PORT: '0' }));
    });
    after(async () => {
      await second.db.close();
      await p.close();
    });

    it('two schedulers racing on one database run each slot once', async () => {
      runs.length = 0;
      const deadline = Date.now() + 2600;
      const loop = async (s: Services) => {
        while (Date.now() < deadline) {
          await runJobIfDue(s, job);
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      await Promise.all([loop(p.services), loop(second), loop(p.services), loop(second)]);
      // One run per one-second slot: 2 to 4 slots fit in 2.6 s, and no second ever ran twice.
      assert.ok(runs.length >= 2 && runs.length <= 4, `runs: ${runs.join(',')}`);
      assert.equal(new Set(runs).size, runs.length, `a slot ran twice: ${runs.join(',')}`);
      const state = (await jobStates(p.services, [job])).find((x) => x.job.name === job.name);
      assert.equal(state?.row?.runs, runs.length);
      assert.equal(state?.row?.last_status, 'ok');
    });

    it('a forced run happens even when not due, and a failing job is recorded as failed', async () => {
      const before = runs.length;
      const out = await runJobIfDue(p.services, job, true);
      assert.equal(out.ran, true);
      assert.equal(runs.length, before + 1);
      const failing: JobDef = {
        name: 'test-lease-failing',
        intervalSeconds: 60,
        description: 'fails',
        run: async () => {
          throw new Error('boom');
        },
      };
      const res = await runJobIfDue(p.services, failing);
      assert.equal(res.status, 'failed');
      assert.equal(res.error, 'boom');
      // Not due again for 60 s: another process does not retry it in the same slot.
      assert.equal((await runJobIfDue(second, failing)).ran, false);
    });
  });
}
