/** `parley jobs:list` and `parley jobs:run NAME`. */
import type { Command } from 'commander';
import { jobs, jobStates, runJobIfDue, scaledInterval } from '../jobs/index.js';
import { CommandError, withServices } from './helpers.js';

const fmt = (t: number | undefined) => (t ? new Date(t * 1000).toISOString() : 'never');

export function jobsCommands(program: Command): void {
  program
    .command('jobs:list')
    .description('list periodic jobs with their last and next run')
    .option('--output <format>', 'plain, json or json_pretty', 'plain')
    .action(async (opts: { output: string }) => {
      if (!['plain', 'json', 'json_pretty'].includes(opts.output)) throw new CommandError('--output must be plain, json or json_pretty');
      await withServices(async (services) => {
        const states = await jobStates(services);
        const rows = states.map(({ job, row }) => ({
          name: job.name,
          interval: scaledInterval(job, services.settings.jobIntervalScale),
          lastRun: row?.last_run_at ? row.last_run_at : null,
          lastStatus: row?.last_status || null,
          nextRun: row ? row.next_run_at : 0,
          runs: row?.runs ?? 0,
          description: job.description,
        }));
        if (opts.output === 'plain') {
          for (const r of rows) {
            console.log(`  - ${r.name}: every ${r.interval}s, last run ${fmt(r.lastRun ?? 0)}${r.lastStatus ? ` (${r.lastStatus})` : ''}, next run ${r.nextRun ? fmt(r.nextRun) : 'now'} — ${r.description}`);
          }
        } else {
          console.log(JSON.stringify(rows, null, opts.output === 'json_pretty' ? 2 : undefined));
        }
      });
    });

  program
    .command('jobs:run')
    .description('run one job now')
    .argument('<name>', 'job name (see jobs:list)')
    .action(async (name: string) => {
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new CommandError(`unknown job "${name}"; known jobs: ${jobs.map((j) => j.name).join(', ') || 'none'}`);
      await withServices(async (services) => {
        const out = await runJobIfDue(services, job, true);
        if (out.status === 'failed') throw new CommandError(`job ${name} failed: ${out.error}`);
        console.log(`job ${name} ran${out.summary ? `: ${out.summary}` : ''}`);
      });
    });
}
