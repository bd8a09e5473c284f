/**
 * Serves the admin page's browser modules and stylesheet. A build (`npm run build`) has compiled
 * them into dist/ next to this file; when Parley runs from the TypeScript sources (tsx, tests)
 * the module is transpiled from src/ on first request with the TypeScript compiler, so both ways
 * serve the same code. Only files under web/ and the app-config registry with its section
 * files (which the page imports so that it validates exactly as the server does) are served.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/ or dist/: the root both trees share. */
const root = path.dirname(here);
const fromSources = import.meta.url.endsWith('.ts');

/** Served module paths (relative to root, without extension). */
const SERVED = /^(web\/[a-z0-9-]+(\/[a-z0-9-]+)*|app-config\/registry(\/[a-z0-9-]+)?)\.(js|css)$/;

const cache = new Map<string, { body: string; type: string }>();

async function transpile(source: string, file: string): Promise<string> {
  const ts = (await import('typescript')).default;
  const out = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, sourceMap: false },
  });
  return out.outputText;
}

/** The body and content type of an asset, or undefined when it is not a served file. */
export async function webAsset(relative: string): Promise<{ body: string; type: string } | undefined> {
  if (!SERVED.test(relative) || relative.includes('..')) return undefined;
  const hit = cache.get(relative);
  if (hit) return hit;
  let asset: { body: string; type: string };
  try {
    if (relative.endsWith('.css')) {
      asset = { body: await fs.readFile(path.join(root, relative), 'utf8'), type: 'text/css; charset=utf-8' };
    } else if (fromSources) {
      const file = path.join(root, relative.replace(/\.js$/, '.ts'));
      asset = { body: await transpile(await fs.readFile(file, 'utf8'), file), type: 'text/javascript; charset=utf-8' };
    } else {
      asset = { body: await fs.readFile(path.join(root, relative), 'utf8'), type: 'text/javascript; charset=utf-8' };
    }
  } catch {
    return undefined;
  }
  cache.set(relative, asset);
  return asset;
}
