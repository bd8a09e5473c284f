/**
 * `parley doctor` (docs/operators.md "parley doctor"): runs the setup checks against the
 * deployment these settings describe (the running server at its configured address, the
 * database, the data directory, mail, STUN/TURN and each signaling server) and prints each
 * finding with its fix. Exits 1 when a check failed (warnings do not fail).
 */
import type { Command } from 'commander';
import type { SetupCheck } from '../services/platform/setup-checks.js';
import { CommandError, outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

const MARK: Record<SetupCheck['status'], string> = { ok: 'ok', info: 'info', warning: 'WARNING', error: 'ERROR' };

export function doctorCommands(program: Command): void {
  withOutputOption(
    program.command('doctor').description('check the deployment (address, trusted domains, database, data directory, mail, STUN/TURN, signaling servers)'),
  ).action(async (opts: { output: string }) => {
    const format = outputFormat(opts.output);
    const checks = await runCommand((s) => s.setupChecks.run());
    printOutput(format, checks, () =>
      checks.flatMap((c) => [`[${MARK[c.status]}] ${c.title}: ${c.message}`, ...(c.fix && c.status !== 'ok' ? [`    fix: ${c.fix}`] : [])]),
    );
    const failed = checks.filter((c) => c.status === 'error').length;
    if (failed > 0) throw new CommandError(`${failed} check${failed === 1 ? '' : 's'} failed`);
  });
}
