// Whether dist/ (npm run build) is older than what it is built from. Used by `npm start` to skip
// an up-to-date build and by the `parley` command to notice a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The inputs of `npm run build` besides src/ itself. */
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/copy-web-assets.mjs'];

function newestMtime(root, dir) {
  let newest = 0;
  for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * 'missing' when there is no build, 'stale' when a source or build input changed after it, 'fresh'
 * otherwise, or 'no-sources' for an installed package without src/.
 */
export function buildState(root) {
  const built = path.join(root, 'dist', 'main.js');
  if (!existsSync(path.join(root, 'src'))) return existsSync(built) ? 'no-sources' : 'missing';
  if (!existsSync(built)) return 'missing';
  const builtAt = statSync(built).mtimeMs;
  let newest = newestMtime(root, 'src');
  for (const f of BUILD_INPUTS) if (existsSync(path.join(root, f))) newest = Math.max(newest, statSync(path.join(root, f)).mtimeMs);
  return newest > builtAt ? 'stale' : 'fresh';
}
