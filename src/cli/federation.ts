/**
 * `parley federation:trusted-servers:add|remove|list` (docs/federation.md "Trust"): the servers
 * federation is limited to while `federation_only_trusted_servers` is on. A refused command prints
 * `error: ...`, exits 1 and changes nothing.
 */
import type { Command } from 'commander';
import { outputFormat, printOutput, runCommand, withOutputOption } from './helpers.js';

export function federationCommands(program: Command): void {
  program
    .command('federation:trusted-servers:add')
    .description('trust a server for federation (used while federation_only_trusted_servers is 1)')
    .argument('<server>', 'host[:port][/path], e.g. cloud.example.org')
    .action(async (server: string) => {
      const r = await runCommand((s) => s.federation.trust.add(server));
      console.log(r.added ? `Added ${r.server}.` : `${r.server} is trusted already.`);
    });
  program
    .command('federation:trusted-servers:remove')
    .description('stop trusting a server')
    .argument('<server>', 'the server as listed')
    .action(async (server: string) => {
      const name = await runCommand((s) => s.federation.trust.remove(server));
      console.log(`Removed ${name}.`);
    });
  withOutputOption(program.command('federation:trusted-servers:list').description('list the trusted servers')).action(async (opts: { output: string }) => {
    const format = outputFormat(opts.output);
    const list = await runCommand((s) => s.federation.trust.list());
    printOutput(format, list, () => list.map((x) => `  - ${x}`));
  });
}
