#!/usr/bin/env node
/** Entry point of the `parley` command. */
import { buildProgram } from './cli/index.js';

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    console.error(`error: ${(err as Error)?.message ?? err}`);
    process.exit(1);
  });
