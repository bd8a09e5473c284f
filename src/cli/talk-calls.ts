/**
 * `parley talk:active-calls` and `talk:monitor:calls`, named and shaped as Nextcloud Talk's occ
 * commands (Talk's ActiveCalls and Monitor\Calls): whether calls run, and how many attendees
 * are in each (in-call sessions pinged within the last 60 s).
 */
import type { Command } from 'commander';
import { outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

type Opts = { output: string };

const summary = (calls: number, participants: number) =>
  calls === 0 ? 'No calls in progress' : `There are currently ${calls} calls in progress with ${participants} participants`;

export function talkCallCommands(program: Command): void {
  withOutputOption(program.command('talk:active-calls').description('check whether calls are in progress (exit code 1 while there are)')).action(
    async (opts: Opts) => {
      const format = outputFormat(opts.output);
      const active = await runCommand((s) => s.calls.activeCalls());
      printOutput(format, active, () => [summary(active.calls, active.participants)]);
      // Talk exits with 1 while calls run, so scripts can wait for a quiet moment (upgrades).
      if (active.calls > 0) process.exitCode = 1;
    },
  );

  withOutputOption(program.command('talk:monitor:calls').description('list the conversations with an active call and their participant count')).action(
    async (opts: Opts) => {
      const format = outputFormat(opts.output);
      const sizes = await runCommand((s) => s.calls.callSizes());
      const data = Object.fromEntries(sizes.map((x) => [x.token, x.participants]));
      printOutput(format, data, () => [
        summary(
          sizes.length,
          sizes.reduce((n, x) => n + x.participants, 0),
        ),
        ...sizes.map((x) => `  - "${x.token}": ${x.participants}`),
      ]);
    },
  );
}
