/**
 * `parley user:add|delete|list|reset-password|enable|disable` (docs/operators.md "Accounts from
 * the command line"): the accounts of the provisioning API from the command line, through the same
 * DirectoryService. A refused command prints `error: ...`, exits 1 and changes nothing.
 */
import type { Command } from 'commander';
import { outputFormat, printOutput, readNewPassword, runCommand, wholeNumber, withOutputOption } from './helpers.js';

export function userCommands(program: Command): void {
  program
    .command('user:add')
    .description('create a user (password from OC_PASS with --password-from-env, or asked on a terminal)')
    .argument('<uid>', 'user id')
    .option('--password-from-env', 'read the password from the OC_PASS environment variable')
    .option('--display-name <name>', 'display name (defaults to the user id)')
    .option('--email <email>', 'email address')
    .option('-g, --group <group...>', 'existing group(s) to add the user to')
    .action(async (uid: string, opts: { passwordFromEnv?: boolean; displayName?: string; email?: string; group?: string[] }) => {
      const password = await readNewPassword(opts.passwordFromEnv);
      await runCommand(async (s) => {
        await s.directory.createUser({ id: uid, password, displayName: opts.displayName, email: opts.email, groups: opts.group });
      });
      console.log(`The account "${uid}" was created successfully`);
      if (opts.displayName) console.log(`Display name set to "${opts.displayName}"`);
      if (opts.email) console.log(`Email address set to "${opts.email}"`);
      for (const g of new Set(opts.group ?? [])) console.log(`Account "${uid}" added to group "${g}"`);
    });

  program
    .command('user:delete')
    .description('delete a user, with their memberships, app passwords and preferences')
    .argument('<uid>', 'user id')
    .action(async (uid: string) => {
      await runCommand((s) => s.directory.deleteUser(uid));
      console.log(`The account "${uid}" was deleted`);
    });

  withOutputOption(
    program
      .command('user:list')
      .description('list users with their display names')
      .option('--search <text>', 'only users whose id, display name or email contains this')
      .option('--limit <n>', 'at most this many users', '500')
      .option('--offset <n>', 'skip this many users', '0'),
  ).action(async (opts: { search?: string; limit: string; offset: string; output: string }) => {
    const format = outputFormat(opts.output);
    const limit = wholeNumber('limit', opts.limit);
    const offset = wholeNumber('offset', opts.offset) ?? 0;
    const users = await runCommand((s) => s.directory.listUsers(opts.search ?? '', limit, offset));
    const data = Object.fromEntries(users.map((u) => [u.id, u.display_name || u.id]));
    printOutput(format, data, () => users.map((u) => `  - ${u.id}: ${u.display_name || u.id}${u.enabled ? '' : ' (disabled)'}`));
  });

  program
    .command('user:reset-password')
    .description("set a user's login password (cached logins with the old one stop working)")
    .argument('<uid>', 'user id')
    .option('--password-from-env', 'read the password from the OC_PASS environment variable')
    .action(async (uid: string, opts: { passwordFromEnv?: boolean }) => {
      // Refuse an unknown user before asking for a password.
      await runCommand((s) => s.directory.requireUser(uid));
      const password = await readNewPassword(opts.passwordFromEnv);
      await runCommand((s) => s.directory.setPassword(uid, password));
      console.log(`Successfully reset password for ${uid}`);
    });

  for (const [name, enabled] of [
    ['user:enable', true],
    ['user:disable', false],
  ] as const) {
    program
      .command(name)
      .description(enabled ? 'enable a user' : 'disable a user (their logins and app passwords stop working)')
      .argument('<uid>', 'user id')
      .action(async (uid: string) => {
        await runCommand((s) => s.directory.setEnabled(uid, enabled));
        console.log(`The specified account is ${enabled ? 'enabled' : 'disabled'}`);
      });
  }
}
