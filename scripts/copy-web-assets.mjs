#!/usr/bin/env node
// Part of `npm run build`: tsc compiles the admin page's TypeScript; this copies its stylesheets
// (src/web/**/*.css) next to the compiled modules in dist/web.
import { cpSync, readdirSync, statSync, mkdirSync } from 'node:fs';
import path from 'node:path';

function copy(dir) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) copy(p);
    else if (name.endsWith('.css')) {
      const target = path.join('dist', path.relative('src', p));
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(p, target);
    }
  }
}
copy(path.join('src', 'web'));
