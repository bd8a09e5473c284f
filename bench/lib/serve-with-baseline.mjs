#!/usr/bin/env node
/**
 * The built server as `parley serve` runs it, plus the benchmark's baseline route
 * (prerendered-route.mjs): the bench harness starts this instead of dist/main.js so that the
 * baseline is answered by the same process, through the same hooks, as the routes it is compared with.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerGc, registerPrerendered } from './prerendered-route.mjs';
import { distDir } from './server.mjs';

const { serve } = await import(pathToFileURL(path.join(distDir, 'cli', 'serve.js')).href);
await serve((app, services) => {
  registerPrerendered(app, services.settings.dataDir);
  registerGc(app);
});
