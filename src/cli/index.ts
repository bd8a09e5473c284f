/**
 * The `parley` command. Without a command it serves (as `parley serve`), so a container or a
 * service unit can run the bare binary; an unknown command is an error naming it. `migrate`
 * lives here; each area adds its command
 * module to `commandModules` (user:*, group:*, config:app:*, talk:*, team:*, phone-number:*, jobs:*).
 */
import { Command } from 'commander';
import { withServices } from './helpers.js';
import { serve, serveCommand } from './serve.js';
import { versionLine } from './version.js';
import { userCommands } from './users.js';
import { groupCommands } from './groups.js';
import { teamCommands } from './teams.js';
import { phoneNumberCommands } from './phone-numbers.js';
import { jobsCommands } from './jobs.js';
import { talkServerCommands } from './talk-servers.js';
import { talkRoomCommands } from './talk-rooms.js';
import { talkCallCommands } from './talk-calls.js';
import { appConfigCommands } from './app-config.js';
import { doctorCommands } from './doctor.js';
import { federationCommands } from './federation.js';

// The test helper (test/helpers/cli.ts) tells command failures apart by this class; the command
// modules take it from helpers.ts.
export { CommandError } from './helpers.js';

type CommandModule = (program: Command) => void;

const commandModules: CommandModule[] = [
  serveCommand,
  talkServerCommands,
  talkRoomCommands,
  talkCallCommands,
  teamCommands,
  phoneNumberCommands,
  jobsCommands,
  userCommands,
  groupCommands,
  appConfigCommands,
  doctorCommands,
  federationCommands,
];

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('parley')
    .description('Parley: a conversation service speaking the Nextcloud Talk API.\nWithout a command, parley starts the server (as `parley serve`).')
    .version(versionLine(), '-v, --version', 'print the version and exit')
    .showHelpAfterError()
    // Operands reach the action below only when they name no command: say which one is unknown
    // instead of commander's "too many arguments".
    .allowExcessArguments(true)
    .action(async () => {
      if (program.args.length > 0) program.error(`error: unknown command '${program.args[0]}' (see \`parley --help\`)`, { code: 'commander.unknownCommand' });
      await serve();
    });
  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .action(async () => {
      await withServices(async () => undefined);
      console.log('database is up to date');
    });
  for (const mod of commandModules) mod(program);
  // Subcommands inherit the root's allowExcessArguments; a stray word (`user:enable bob
  // carol-typo`) must be refused, not silently ignored while the command reports success.
  for (const cmd of program.commands) cmd.allowExcessArguments(false);
  return program;
}
