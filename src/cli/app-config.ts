/**
 * `parley config:app:get|set|delete|list` (docs/operators.md "App configuration from the command
 * line"), shaped as Nextcloud's occ `config:app:*` and `config:list`. They call AppConfigService,
 * so validation is the API's: an unknown app or key, or a value the registry refuses, prints
 * `error: ...`, exits 1 and stores nothing. Secrets are printed masked, never in clear.
 */
import type { Command } from 'commander';
import { maskConfigValue } from '../app-config/registry.js';
import type { Services } from '../services/index.js';
import { CommandError, outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

type OutputOpts = { output: string };

/** occ's plain rendering of nested lists: `  - key: value`, nested entries indented by two. */
function plainLines(data: Record<string, unknown>, prefix = '  - '): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    if (v !== null && typeof v === 'object') {
      out.push(`${prefix}${k}:`);
      out.push(...plainLines(v as Record<string, unknown>, `  ${prefix}`));
    } else {
      out.push(`${prefix}${k}: ${String(v)}`);
    }
  }
  return out;
}

/** The apps to list: all of them, or the one named (unknown → error, nothing printed). */
function appsToList(s: Services, app: string | undefined): string[] {
  if (app === undefined || app === 'all') return s.appConfig.apps();
  s.appConfig.requireApp(app);
  return [app];
}

export function appConfigCommands(program: Command): void {
  withOutputOption(
    program
      .command('config:app:get')
      .description('print an app config value (secrets masked); the default when it is not set')
      .argument('<app>', 'app id (spreed)')
      .argument('<name>', 'config key')
      .option('--default-value <value>', 'printed when the key is not set'),
  ).action(async (app: string, name: string, opts: OutputOpts & { defaultValue?: string }) => {
    const format = outputFormat(opts.output);
    const entry = await runCommand(async (s) => {
      s.appConfig.requireApp(app);
      return s.appConfig.read(name);
    });
    const value = entry.isDefault && opts.defaultValue !== undefined ? opts.defaultValue : entry.value;
    // As is (plain) or JSON-encoded, as occ's writeMixedInOutputFormat.
    printOutput(format, value, () => [value]);
  });

  withOutputOption(
    program
      .command('config:app:set')
      .description('validate and store an app config value')
      .argument('<app>', 'app id (spreed)')
      .argument('<name>', 'config key')
      .option('--value <value>', 'the new value (stored as a string, as the registry says)')
      .option('--update-only', 'only change a value that is already set'),
  ).action(async (app: string, name: string, opts: OutputOpts & { value?: string; updateOnly?: boolean }) => {
    outputFormat(opts.output);
    if (opts.value === undefined) throw new CommandError('--value is required');
    const shown = await runCommand(async (s) => {
      s.appConfig.requireApp(app);
      const def = s.appConfig.definition(name);
      if (opts.updateOnly && (await s.appConfig.read(name)).isDefault) {
        throw new CommandError(`Config value ${name} for app ${app} not updated, as it has not been set before.`);
      }
      return maskConfigValue(def, await s.appConfig.set(name, opts.value));
    });
    console.log(`Config value '${name}' for app '${app}' is now set to '${shown}'`);
  });

  program
    .command('config:app:delete')
    .description('delete an app config value (its default applies again)')
    .argument('<app>', 'app id (spreed)')
    .argument('<name>', 'config key')
    .option('--error-if-not-exists', 'fail when the key is not set')
    .action(async (app: string, name: string, opts: { errorIfNotExists?: boolean }) => {
      await runCommand(async (s) => {
        s.appConfig.requireApp(app);
        if (opts.errorIfNotExists && (await s.appConfig.read(name)).isDefault) {
          throw new CommandError(`Config ${name} of app ${app} could not be deleted because it did not exist`);
        }
        await s.appConfig.delete(name);
      });
      console.log(`Config value '${name}' of app '${app}' deleted`);
    });

  withOutputOption(
    program
      .command('config:app:list')
      .description('list stored app config values, as occ config:list (secrets masked)')
      .argument('[app]', 'app id (spreed), or all')
      .option('--defaults', 'also list the keys that are not set, with their default'),
    'json_pretty',
  ).action(async (app: string | undefined, opts: OutputOpts & { defaults?: boolean }) => {
    const format = outputFormat(opts.output);
    const apps = await runCommand(async (s) => {
      const ids = appsToList(s, app);
      // The service holds one app's config (spreed), so each listed app shows the same entries.
      const entries = opts.defaults ? await s.appConfig.list() : await s.appConfig.listStored();
      const values = Object.fromEntries(entries.map((e) => [e.key, e.value]));
      return Object.fromEntries(ids.map((id) => [id, values]));
    });
    const data = { apps };
    printOutput(format, data, () => plainLines(data));
  });
}
