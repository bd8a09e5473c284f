/**
 * `parley team:*`: the teams (circles) directory (docs/api.md "Participants and sessions").
 * Conversations that contain a team follow its membership changes.
 */
import type { Command } from 'commander';
import { CommandError, outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

export function teamCommands(program: Command): void {
  program
    .command('team:add')
    .description('create a team (circle)')
    .argument('<teamId>', 'team id')
    .option('--display-name <name>', 'display name (defaults to the id)')
    .action(async (teamId: string, opts: { displayName?: string }) => {
      const t = await runCommand((s) => s.teams.create(teamId, opts.displayName));
      console.log(`team ${t.id} created`);
    });

  program
    .command('team:delete')
    .description('delete a team; conversations lose the team and the members it brought')
    .argument('<teamId>', 'team id')
    .action(async (teamId: string) => {
      await runCommand((s) => s.teams.delete(teamId));
      console.log(`team ${teamId} deleted`);
    });

  withOutputOption(program.command('team:list').description('list teams with their member counts')).action(async (opts: { output: string }) => {
    const format = outputFormat(opts.output);
    const rows = await runCommand(async (s) => {
      const teams = await s.teams.list();
      const counts = await s.teams.memberCounts();
      return teams.map((t) => ({ id: t.id, displayName: t.display_name, members: counts.get(t.id) ?? 0 }));
    });
    printOutput(format, rows, () => rows.map((r) => `${r.id}\t${r.displayName}\t${r.members} member(s)`));
  });

  program
    .command('team:adduser')
    .description('add a user to a team')
    .argument('<teamId>', 'team id')
    .argument('<userId>', 'user id')
    .action(async (teamId: string, userId: string) => {
      const added = await runCommand((s) => s.teams.addMember(teamId, userId));
      console.log(added ? `${userId} added to ${teamId}` : `${userId} is already in ${teamId}`);
    });

  program
    .command('team:removeuser')
    .description('remove a user from a team')
    .argument('<teamId>', 'team id')
    .argument('<userId>', 'user id')
    .action(async (teamId: string, userId: string) => {
      const removed = await runCommand((s) => s.teams.removeMember(teamId, userId));
      if (!removed) throw new CommandError(`${userId} is not in ${teamId}`);
      console.log(`${userId} removed from ${teamId}`);
    });
}
