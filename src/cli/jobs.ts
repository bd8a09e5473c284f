/** `parley jobs:list` and `parley jobs:run NAME`. */
import type { Command } from 'commander';
import { jobs, jobStates, runJobIfDue, scaledInterval } from '../jobs/index.js';
import { CommandError, outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

const fmt = (t: number | undefined) => (t ? new Date(t * 1000).toISOString() : 'never');

export function jobsCommands(program: Command): void {
  withOutputOption(program.command('jobs:list').description('list periodic jobs with their last and next run')).action(async (opts: { output: string }) => {
    const format = outputFormat(opts.output);
    const rows = await runCommand(async (services) =>
      (await jobStates(services, jobs)).map(({ job, row }) => ({
        name: job.name,
        interval: scaledInterval(job, services.settings.jobIntervalScale),
        lastRun: row?.last_run_at ? row.last_run_at : null,
        lastStatus: row?.last_status || null,
        nextRun: row ? row.next_run_at : 0,
        runs: row?.runs ?? 0,
        description: job.description,
      })),
    );
    printOutput(format, rows, () =>
      rows.map(
        (r) =>
          `  - ${r.name}: every ${r.interval}s, last run ${fmt(r.lastRun ?? 0)}${r.lastStatus ? ` (${r.lastStatus})` : ''}, next run ${r.nextRun ? fmt(r.nextRun) : 'now'} — ${r.description}`,
      ),
    );
  });

  program
    .command('jobs:run')
    .description('run one job now')
    .argument('<name>', 'job name (see jobs:list)')
    .action(async (name: string) => {
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new CommandError(`unknown job "${name}"; known jobs: ${jobs.map((j) => j.name).join(', ') || 'none'}`);
      const out = await runCommand((services) => runJobIfDue(services, job, true));
      if (out.status === 'failed') throw new CommandError(`job ${name} failed: ${out.error}`);
      console.log(`job ${name} ran${out.summary ? `: ${out.summary}` : ''}`);
    });
}
