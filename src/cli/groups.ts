/**
 * `parley group:add|delete|list|adduser|removeuser` (docs/operators.md "Accounts from the command
 * line"), through the same DirectoryService as the provisioning API. A refused command prints
 * `error: ...`, exits 1 and changes nothing.
 */
import type { Command } from 'commander';
import { outputFormat, printOutput, runCommand, wholeNumber, withOutputOption } from './helpers.js';

export function groupCommands(program: Command): void {
  program
    .command('group:add')
    .description('create a group')
    .argument('<groupid>', 'group id')
    .option('--display-name <name>', 'display name (defaults to the id)')
    .action(async (groupId: string, opts: { displayName?: string }) => {
      await runCommand((s) => s.directory.createGroup(groupId, opts.displayName));
      console.log(`Created group "${groupId}"`);
    });

  program
    .command('group:delete')
    .description('delete a group (the admin group cannot be deleted)')
    .argument('<groupid>', 'group id')
    .action(async (groupId: string) => {
      await runCommand((s) => s.directory.deleteGroup(groupId));
      console.log(`Group "${groupId}" was removed`);
    });

  withOutputOption(
    program
      .command('group:list')
      .description('list groups with their members')
      .option('--search <text>', 'only groups whose id or display name contains this')
      .option('--limit <n>', 'at most this many groups', '500')
      .option('--offset <n>', 'skip this many groups', '0'),
  ).action(async (opts: { search?: string; limit: string; offset: string; output: string }) => {
    const format = outputFormat(opts.output);
    const limit = wholeNumber('limit', opts.limit);
    const offset = wholeNumber('offset', opts.offset) ?? 0;
    const groups = await runCommand(async (s) => {
      const rows = await s.directory.listGroups(opts.search ?? '', limit, offset);
      return Promise.all(rows.map(async (g) => ({ id: g.id, members: await s.directory.membersOf(g.id) })));
    });
    const data = Object.fromEntries(groups.map((g) => [g.id, g.members]));
    printOutput(format, data, () => groups.flatMap((g) => [`  - ${g.id}:`, ...g.members.map((m) => `    - ${m}`)]));
  });

  program
    .command('group:adduser')
    .description('add a user to a group')
    .argument('<groupid>', 'group id')
    .argument('<uid>', 'user id')
    .action(async (groupId: string, uid: string) => {
      await runCommand((s) => s.directory.addToGroup(groupId, uid));
      console.log(`Added "${uid}" to group "${groupId}"`);
    });

  program
    .command('group:removeuser')
    .description('remove a user from a group')
    .argument('<groupid>', 'group id')
    .argument('<uid>', 'user id')
    .action(async (groupId: string, uid: string) => {
      await runCommand((s) => s.directory.removeFromGroup(groupId, uid));
      console.log(`Removed "${uid}" from group "${groupId}"`);
    });
}
