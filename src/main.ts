#!/usr/bin/env node
/** Entry point of the `parley` command. */
import { buildProgram, CommandError } from './cli/index.js';
import { SettingsError } from './settings.js';

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    if (err instanceof SettingsError || err instanceof CommandError) {
      console.error(`error: ${err.message}`);
    } else {
      console.error(`error: ${(err as Error)?.message ?? err}`);
    }
    process.exit(1);
  });
