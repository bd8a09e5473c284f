/**
 * Shared pieces of `parley` commands: the services of one command, command failures (and
 * service refusals as clean command failures), the
 * `--output=plain|json|json_pretty` option of list commands (as Nextcloud's occ), and
 * password input (`--password-from-env` reading OC_PASS, or a hidden prompt on a terminal).
 */
import readline from 'node:readline';
import type { Command } from 'commander';
import { ApiError } from '../domain/errors.js';
import { openServices } from '../boot.js';
import type { Services } from '../services/index.js';

/** A command failure: printed as `error: message` with exit code 1, nothing changed. */
export class CommandError extends Error {}

/** Opens the services for one command and closes the database afterwards. */
export async function withServices<T>(fn: (s: Services) => Promise<T>): Promise<T> {
  const services = await openServices();
  try {
    return await fn(services);
  } finally {
    // What the command queued for the signaling server (sent in the background) goes out
    // before the connection closes: its reads would otherwise hit a closed database.
    await services.signalingNotifier.idle();
    await services.db.close();
  }
}

/** Runs `fn` with the services; an ApiError (nothing was changed) becomes a CommandError. */
export async function runCommand<T>(fn: (s: Services) => Promise<T>): Promise<T> {
  try {
    return await withServices(fn);
  } catch (e) {
    if (e instanceof ApiError) {
      const d = e.data as { message?: string; error?: string } | null;
      throw new CommandError(d?.message || e.ocsMessage || d?.error || `refused (${e.status})`);
    }
    throw e;
  }
}

const OUTPUT_FORMATS = ['plain', 'json', 'json_pretty'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Adds `--output` (`defaultFormat` when not given); the action validates it with outputFormat before anything runs. */
export function withOutputOption(cmd: Command, defaultFormat: OutputFormat = 'plain'): Command {
  return cmd.option('--output <format>', `output format: ${OUTPUT_FORMATS.join(', ')}`, defaultFormat);
}

export function outputFormat(value: string): OutputFormat {
  if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) {
    throw new CommandError(`--output must be one of ${OUTPUT_FORMATS.join(', ')}, got "${value}"`);
  }
  return value as OutputFormat;
}

/** Prints `data` as JSON, or the plain lines. */
export function printOutput(format: OutputFormat, data: unknown, plain: () => string[]): void {
  if (format === 'plain') {
    for (const line of plain()) console.log(line);
  } else {
    console.log(JSON.stringify(data, null, format === 'json_pretty' ? 4 : undefined));
  }
}

/** Parses a non-negative whole-number option (limit, offset) of at most `maxDigits` digits. */
export function wholeNumber(name: string, value: string | undefined, maxDigits = 9): number | undefined {
  if (value === undefined) return undefined;
  if (!new RegExp(`^\\d{1,${maxDigits}}$`).test(value)) throw new CommandError(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

/** Asks a question on the terminal without echoing the answer. */
function askHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    let prompted = false;
    // Echo the prompt once, then nothing of what is typed.
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (!prompted) {
        process.stdout.write(s);
        prompted = true;
      }
    };
    rl.question(question, (answer) => {
      process.stdout.write('\n');
      rl.close();
      resolve(answer);
    });
    rl.on('SIGINT', () => {
      rl.close();
      reject(new CommandError('cancelled'));
    });
  });
}

/**
 * The password for user:add / user:reset-password: OC_PASS with `--password-from-env` (as
 * Nextcloud's occ), otherwise a hidden prompt asked twice when stdin is a terminal.
 */
export async function readNewPassword(fromEnv: boolean | undefined): Promise<string> {
  if (fromEnv) {
    const pw = process.env.OC_PASS ?? '';
    if (pw === '') throw new CommandError('--password-from-env given, but OC_PASS is empty');
    return pw;
  }
  if (!process.stdin.isTTY) {
    throw new CommandError('a password is needed: pass --password-from-env with OC_PASS set, or run in a terminal to be asked');
  }
  const first = await askHidden('Enter password: ');
  const second = await askHidden('Confirm password: ');
  if (first !== second) throw new CommandError('the passwords did not match');
  if (first === '') throw new CommandError('the password must not be empty');
  return first;
}
