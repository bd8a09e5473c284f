/**
 * `parley talk:stun:*`, `talk:turn:*`, `talk:signaling:*`, `talk:recording:*` (docs/operators.md
 * "Talk commands"), named and shaped as Nextcloud Talk's occ commands. They call
 * ServerListsService, which stores through the same app-config path as the API. A refused command
 * prints `error: ...`, exits 1 and changes nothing. Secrets are never printed (except a generated
 * TURN secret, once).
 */
import type { Command } from 'commander';
import type { ServerListKey } from '../services/platform/server-lists.js';
import { outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

type Opts = { output: string };

function serverListCommands(program: Command, name: string, key: ServerListKey, what: string): void {
  program
    .command(`talk:${name}:add`)
    .description(`add a ${what} server; <secret> becomes the shared secret of all ${what} servers`)
    .argument('<server>', 'server URL, e.g. https://signaling.example.org')
    .argument('<secret>', 'shared secret')
    .option('--verify', 'validate the server certificate (TLS)')
    .action(async (server: string, secret: string, opts: { verify?: boolean }) => {
      await runCommand((s) => s.serverLists.addServer(key, server, secret, opts.verify === true));
      console.log(`Added ${server}.`);
    });
  program
    .command(`talk:${name}:delete`)
    .description(`remove a ${what} server`)
    .argument('<server>', 'server URL as listed')
    .action(async (server: string) => {
      await runCommand((s) => s.serverLists.deleteServer(key, server));
      console.log(`Deleted ${server}.`);
    });
  withOutputOption(program.command(`talk:${name}:list`).description(`list the ${what} servers (the secret is not shown)`)).action(async (opts: Opts) => {
    const format = outputFormat(opts.output);
    const list = await runCommand((s) => s.serverLists.servers(key));
    printOutput(format, list, () => [
      ...list.servers.map((x) => `  - ${x.server} (verify: ${x.verify ? 'yes' : 'no'})`),
      `  - secret: ${list.secret ? 'set' : 'not set'}`,
    ]);
  });
}

export function talkServerCommands(program: Command): void {
  program
    .command('talk:stun:add')
    .description('add a STUN server')
    .argument('<server>', 'host:port, e.g. stun.example.org:443')
    .action(async (server: string) => {
      await runCommand((s) => s.serverLists.addStun(server));
      console.log(`Added ${server}.`);
    });
  program
    .command('talk:stun:delete')
    .description('remove a STUN server')
    .argument('<server>', 'host:port as listed')
    .action(async (server: string) => {
      await runCommand((s) => s.serverLists.deleteStun(server));
      console.log(`Deleted ${server}.`);
    });
  withOutputOption(program.command('talk:stun:list').description('list the STUN servers')).action(async (opts: Opts) => {
    const format = outputFormat(opts.output);
    const list = await runCommand((s) => s.serverLists.stunServers());
    printOutput(format, list, () => list.map((x) => `  - ${x}`));
  });

  program
    .command('talk:turn:add')
    .description('add a TURN server (give --secret or --generate-secret)')
    .argument('<schemes>', 'turn, turns or turn,turns')
    .argument('<server>', 'host:port, without a turn: prefix')
    .argument('<protocols>', 'udp, tcp or udp,tcp')
    .option('--secret <secret>', 'shared secret of the TURN server')
    .option('--generate-secret', 'generate a random secret and print it once')
    .action(async (schemes: string, server: string, protocols: string, opts: { secret?: string; generateSecret?: boolean }) => {
      const generated = await runCommand((s) => s.serverLists.addTurn(schemes, server, protocols, opts.secret, opts.generateSecret === true));
      console.log(`Added ${server}.`);
      if (generated) console.log(`Generated secret: ${generated}`);
    });
  program
    .command('talk:turn:delete')
    .description('remove a TURN server')
    .argument('<schemes>', 'turn, turns or turn,turns')
    .argument('<server>', 'host:port')
    .argument('<protocols>', 'udp, tcp or udp,tcp')
    .action(async (schemes: string, server: string, protocols: string) => {
      await runCommand((s) => s.serverLists.deleteTurn(schemes, server, protocols));
      console.log(`Deleted ${server}.`);
    });
  withOutputOption(program.command('talk:turn:list').description('list the TURN servers (secrets are not shown)')).action(async (opts: Opts) => {
    const format = outputFormat(opts.output);
    const list = await runCommand((s) => s.serverLists.turnServers());
    printOutput(format, list, () => list.map((t) => `  - ${t.schemes} ${t.server} ${t.protocols} (secret: ${t.secret ? 'set' : 'not set'})`));
  });

  serverListCommands(program, 'signaling', 'signaling_servers', 'signaling');
  serverListCommands(program, 'recording', 'recording_servers', 'recording');
}
