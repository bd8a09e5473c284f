/**
 * `parley phone-number:*` (Talk's `occ talk:phone-number:*`): map phone numbers to users. A
 * dial-out started by a user with a number shows `sip_bridge_dialout_prefix` + their first
 * number as the caller (docs/api.md "Settings and SIP").
 */
import type { Command } from 'commander';
import { outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

export function phoneNumberCommands(program: Command): void {
  program
    .command('phone-number:add')
    .description('map a phone number (digits, optionally with a leading +) to a user')
    .argument('<phoneNumber>', 'the number, e.g. 4930123456 or +49 30 123456')
    .argument('<userId>', 'the user it belongs to')
    .option('--force', 'move the number from another user')
    .action(async (phoneNumber: string, userId: string, opts: { force?: boolean }) => {
      const row = await runCommand((s) => s.phoneNumbers.add(phoneNumber, userId, opts.force === true));
      console.log(`${row.phone_number} belongs to ${row.actor_id}`);
    });

  program
    .command('phone-number:remove')
    .description('remove the mapping of a phone number')
    .argument('<phoneNumber>', 'the number')
    .action(async (phoneNumber: string) => {
      await runCommand((s) => s.phoneNumbers.remove(phoneNumber));
      console.log(`${phoneNumber} removed`);
    });

  withOutputOption(
    program
      .command('phone-number:list')
      .description("list phone numbers, all or one user's (the first is the dial-out caller number)")
      .option('--user <userId>', 'only this user'),
  ).action(async (opts: { user?: string; output: string }) => {
    const format = outputFormat(opts.output);
    const rows = await runCommand((s) => s.phoneNumbers.list(opts.user));
    const data = rows.map((r) => ({ phoneNumber: r.phone_number, userId: r.actor_id }));
    printOutput(format, data, () => data.map((r) => `${r.phoneNumber}\t${r.userId}`));
  });
}
