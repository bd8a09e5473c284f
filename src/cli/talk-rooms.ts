/**
 * `parley talk:room:create|update|delete|add|remove|promote|demote` and `talk:user:remove`
 * (docs/operators.md "Talk commands"), with the names, arguments and options of Talk's occ
 * commands. They parse and check the option values here and leave everything else to
 * RoomOperatorService, which runs the API's own services as the operator. A refused command prints
 * `error: ...`, exits 1 and changes nothing.
 */
import type { Command } from 'commander';
import { CommandError, runCommand, wholeNumber } from './helpers.js';

/** Collects a repeatable option (`--user a --user b`), as occ's VALUE_IS_ARRAY options. */
const collect = (value: string, previous: string[]) => [...previous, value];

/** `--public` / `--readonly` of talk:room:update: 0 or 1. */
function flag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== '0' && value !== '1') throw new CommandError(`--${name} must be 0 or 1, got "${value}"`);
  return value === '1';
}

/** A whole number of seconds or a scope (up to 12 digits); the service checks the range. */
const whole = (name: string, value: string | undefined) => wholeNumber(name, value, 12);

interface CreateOpts {
  description?: string;
  user: string[];
  group: string[];
  public?: boolean;
  readonly?: boolean;
  listable?: string;
  password?: string;
  owner?: string;
  moderator: string[];
  messageExpiration?: string;
}

interface UpdateOpts {
  name?: string;
  description?: string;
  public?: string;
  readonly?: string;
  listable?: string;
  password?: string;
  owner?: string;
  messageExpiration?: string;
}

export function talkRoomCommands(program: Command): void {
  program
    .command('talk:room:create')
    .description('create a group (or public) conversation')
    .argument('<name>', 'name of the conversation')
    .option('--description <text>', 'description of the conversation')
    .option('--user <user>', 'add this user (repeatable)', collect, [])
    .option('--group <group>', 'add the members of this group (repeatable)', collect, [])
    .option('--public', 'create a public conversation (guests may join with the link)')
    .option('--readonly', 'create it read-only')
    .option('--listable <scope>', 'listable scope: 0 participants only, 1 regular users, 2 everyone')
    .option('--password <password>', 'password (public conversations only)')
    .option('--owner <user>', 'make this participant the owner')
    .option('--moderator <user>', 'promote this participant to moderator (repeatable)', collect, [])
    .option('--message-expiration <seconds>', 'seconds after which messages expire (0 = never)')
    .action(async (name: string, opts: CreateOpts) => {
      const input = {
        name,
        description: opts.description,
        users: opts.user,
        groups: opts.group,
        public: opts.public === true,
        readOnly: opts.readonly === true,
        listable: whole('listable', opts.listable),
        password: opts.password,
        owner: opts.owner,
        moderators: opts.moderator,
        messageExpiration: whole('message-expiration', opts.messageExpiration),
      };
      const room = await runCommand((s) => s.roomOperator.create(input));
      console.log(`Room token: ${room.token}`);
      console.log('Room successfully created.');
    });

  program
    .command('talk:room:update')
    .description('change a group or public conversation')
    .argument('<token>', 'token of the conversation')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description')
    .option('--public <0|1>', '1 makes it public, 0 a group conversation')
    .option('--readonly <0|1>', '1 makes it read-only, 0 read-write')
    .option('--listable <scope>', 'listable scope: 0 participants only, 1 regular users, 2 everyone')
    .option('--password <password>', 'new password (public conversations); empty removes it')
    .option('--owner <user>', 'make this participant the owner; empty leaves it without an owner')
    .option('--message-expiration <seconds>', 'seconds after which messages expire (0 = never)')
    .action(async (token: string, opts: UpdateOpts) => {
      const input = {
        name: opts.name,
        description: opts.description,
        public: flag('public', opts.public),
        readOnly: flag('readonly', opts.readonly),
        listable: whole('listable', opts.listable),
        password: opts.password,
        owner: opts.owner,
        messageExpiration: whole('message-expiration', opts.messageExpiration),
      };
      await runCommand((s) => s.roomOperator.update(token, input));
      console.log('Room successfully updated.');
    });

  program
    .command('talk:room:delete')
    .description('delete a group or public conversation (with its breakout rooms)')
    .argument('<token>', 'token of the conversation')
    .action(async (token: string) => {
      await runCommand((s) => s.roomOperator.delete(token));
      console.log('Room successfully deleted.');
    });

  program
    .command('talk:room:add')
    .description('add users, and the members of groups, to a conversation')
    .argument('<token>', 'token of the conversation')
    .option('--user <user>', 'add this user (repeatable)', collect, [])
    .option('--group <group>', 'add the members of this group (repeatable)', collect, [])
    .action(async (token: string, opts: { user: string[]; group: string[] }) => {
      if (opts.user.length === 0 && opts.group.length === 0) throw new CommandError('nothing to add: give --user and/or --group');
      await runCommand((s) => s.roomOperator.add(token, opts.user, opts.group));
      console.log('Users successfully added to room.');
    });

  program
    .command('talk:room:remove')
    .description('remove users from a conversation, whatever their role')
    .argument('<token>', 'token of the conversation')
    .argument('<participant...>', 'user ids')
    .action(async (token: string, participants: string[]) => {
      await runCommand((s) => s.roomOperator.remove(token, participants));
      console.log('Users successfully removed from room.');
    });

  for (const [verb, promote, what, done] of [
    ['promote', true, 'normal participants to moderators', 'promoted to moderators'],
    ['demote', false, 'moderators to normal participants', 'demoted to regular users'],
  ] as const) {
    program
      .command(`talk:room:${verb}`)
      .description(`${verb} ${what} of a conversation`)
      .argument('<token>', 'token of the conversation')
      .argument('<participant...>', 'user ids')
      .action(async (token: string, participants: string[]) => {
        await runCommand((s) => s.roomOperator.setModerators(token, participants, promote));
        console.log(`Participants successfully ${done}.`);
      });
  }

  program
    .command('talk:user:remove')
    .description('remove users from all their conversations (deleting those they are alone in)')
    .option('--user <user>', 'user to remove (repeatable)', collect, [])
    .option('--private-only', 'keep one-to-one, public and listed conversations')
    .action(async (opts: { user: string[]; privateOnly?: boolean }) => {
      if (opts.user.length === 0) throw new CommandError('give at least one --user');
      await runCommand((s) => s.roomOperator.removeUserFromAllRooms(opts.user, opts.privateOnly === true));
      console.log('Users successfully removed from all rooms.');
    });
}
