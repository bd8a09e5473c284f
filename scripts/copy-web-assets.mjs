#!/usr/bin/env node
// Part of `npm run build`: tsc compiles the admin page's TypeScript; this copies its stylesheets
// (src/web/**/*.css) next to the compiled modules in dist/web.
import { cpSync, readdirSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const web = path.join('src', 'web');
for (const name of readdirSync(web, { recursive: true }).filter((n) => n.endsWith('.css'))) {
  const target = path.join('dist', 'web', name);
  mkdirSync(path.dirname(target), { recursive: true });
  cpSync(path.join(web, name), target);
}
