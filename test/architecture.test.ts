/**
 * The code's shape, checked (docs/design.md; docs/architecture.md "Wiring"): imports go down the
 * layers (http → services → repositories/presenters/domain), nothing fills a module-level
 * registry as modules load, and createServices wires by constructor only. Reads src/ as text.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve('src');
const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(SRC, f));
const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');
const text = new Map(files.map((f) => [rel(f), readFileSync(f, 'utf8')]));

/** Relative import targets of a file (static, type-only, re-exports and dynamic), as src-relative paths. */
function importsOf(file: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm;
  for (const m of text.get(file)!.matchAll(re)) out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])));
  return out;
}

/** The strongly connected groups of more than one module (Tarjan), each sorted: the import loops. */
function importCycles(): string[][] {
  const edges = (file: string) =>
    importsOf(file)
      .map((t) => t.replace(/\.js$/, '.ts'))
      .filter((t) => text.has(t));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) loops.push(group.sort());
    }
  };
  for (const file of text.keys()) if (!index.has(file)) visit(file);
  return loops;
}

/** Longest a source file may be (docs/architecture.md): past it, a file holds more than one concept. */
const MAX_LINES = 600;

/** The files of src/ longer than MAX_LINES, with their line counts (as `wc -l` counts them). */
function filesOverMaxLines(): string[] {
  const lines = (src: string) => src.split('\n').length - (src.endsWith('\n') ? 1 : 0);
  return [...text].filter(([, src]) => lines(src) > MAX_LINES).map(([f, src]) => `${f}: ${lines(src)} lines`);
}

/** Layer → layers it must not import from. */
const FORBIDDEN: Record<string, string[]> = {
  presenters: ['services', 'http', 'cli', 'jobs', 'events'],
  domain: ['services', 'http', 'cli', 'jobs', 'events', 'presenters', 'cache', 'db'],
  cache: ['services', 'http', 'cli', 'jobs', 'events', 'presenters', 'db'],
  db: ['services', 'http', 'cli', 'jobs', 'events', 'presenters'],
  'app-config': ['services', 'http', 'cli', 'jobs', 'events', 'db', 'presenters'],
  services: ['http', 'cli', 'jobs'],
  events: ['services', 'http', 'cli', 'jobs', 'presenters', 'cache'],
};

/** Patterns of wiring that imports do not show. */
const REGISTRY_PATTERNS: Array<[RegExp, string]> = [
  [/^export\s+let\s/m, 'an exported mutable binding'],
  [/^(?:export\s+)?const\s+\w+\s*(?::\s*[^=]+)?=\s*\[\s*\]\s*;/m, 'a module-level array that starts empty (a registry)'],
  [/\bregister(?:Features|Job|CookieSessions|LoginSessionResolver)\b/, 'a register-at-load function'],
  [/\b(?:userResolvers|contextHooks|participantFinders|sessionFinder|userStatusLoader|phoneAdder)\b/, 'a callback slot filled after construction'],
  [/\bqueryListeners\b|\.useLogger\(/, 'a listener list or logger handed over after construction'],
];

describe('architecture', () => {
  it('found the sources', () => {
    assert.ok(text.size > 100, `${text.size} files`);
    assert.ok(text.has('services/index.ts'));
  });

  it('no upward import: presenters, domain, cache, db and app-config import nothing from services or http', () => {
    const bad: string[] = [];
    for (const file of text.keys()) {
      const layer = file.split('/')[0];
      const forbidden = FORBIDDEN[layer];
      if (!forbidden) continue;
      for (const target of importsOf(file)) {
        const to = target.split('/')[0];
        if (forbidden.includes(to)) bad.push(`${file} imports ${target}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('the check sees an upward import when there is one', () => {
    text.set('presenters/__probe.ts', "import type { RequestContext } from '../services/request-context.js';\n");
    try {
      assert.deepEqual(importsOf('presenters/__probe.ts'), ['services/request-context.js']);
    } finally {
      text.delete('presenters/__probe.ts');
    }
  });

  it('no import loops: the module graph of src/ has no cycle (type-only imports count too)', () => {
    assert.deepEqual(importCycles(), []);
  });

  it('the loop check sees a loop when there is one', () => {
    text.set('domain/__a.ts', "import { b } from './__b.js';\n");
    text.set('domain/__b.ts', "import type { a } from './__a.js';\n");
    try {
      assert.deepEqual(importCycles(), [['domain/__a.ts', 'domain/__b.ts']]);
    } finally {
      text.delete('domain/__a.ts');
      text.delete('domain/__b.ts');
    }
  });

  it('no file in src/ over 600 lines', () => {
    assert.deepEqual(filesOverMaxLines(), []);
  });

  it('the length check sees a file over 600 lines when there is one', () => {
    text.set('domain/__long.ts', 'export const x = 1;\n'.repeat(MAX_LINES + 1));
    text.set('domain/__just-fits.ts', 'export const x = 1;\n'.repeat(MAX_LINES));
    try {
      assert.deepEqual(filesOverMaxLines(), [`domain/__long.ts: ${MAX_LINES + 1} lines`]);
    } finally {
      text.delete('domain/__long.ts');
      text.delete('domain/__just-fits.ts');
    }
  });

  it('no module-level registry and no callback slot wired after construction', () => {
    const bad: string[] = [];
    for (const [file, src] of text) {
      for (const [re, what] of REGISTRY_PATTERNS) {
        const m = re.exec(src);
        if (m) bad.push(`${file}: ${what}: ${m[0].trim()}`);
      }
    }
    assert.deepEqual(bad, []);
    // The patterns catch what they were written for.
    assert.ok(REGISTRY_PATTERNS[1][0].test('export const FEATURES: FeatureDef[] = [];'));
    assert.ok(REGISTRY_PATTERNS[3][0].test('rooms.sessionFinder = (ctx, v) => x;'));
    assert.ok(REGISTRY_PATTERNS[4][0].test('db.stats.queryListeners.push((ms) => x);'));
    assert.ok(REGISTRY_PATTERNS[4][0].test('services.mail.useLogger(app.log);'));
  });

  it('createServices wires by constructor only: no property assignment and no push after construction', () => {
    const src = text.get('services/index.ts')!;
    const body = src.slice(src.indexOf('export function createServices'));
    assert.ok(body.length > 0);
    assert.deepEqual(body.match(/^\s*\w+(?:\.\w+)+\s*=[^=>]/gm) ?? [], [], 'property assignments');
    assert.deepEqual(body.match(/\.push\(/g) ?? [], [], 'push calls');
  });

  it('services receive their repositories: none reaches through another service to its repositories', () => {
    // `this.rooms.repos.attendees...` hid which tables a service touches; createServices hands each
    // service the repositories it uses (or the bundle), and transactions use repos.withTransaction.
    const reachThrough = /\b\w+\.repos\.\w+/g;
    const bad: string[] = [];
    for (const [file, src] of text) {
      // Allowed: a service's own (`this.repos.x`) and the scheduler's (`services.repos.jobRuns`).
      for (const m of src.matchAll(reachThrough)) if (!/^(?:this|services)\./.test(m[0])) bad.push(`${file}: ${m[0]}`);
    }
    assert.deepEqual(bad, []);
    assert.deepEqual('await this.rooms.repos.attendees.find(1)'.match(reachThrough), ['rooms.repos.attendees']);
  });

  it('the conversation records come from ConversationViewService itself, not through RoomsService', () => {
    const bad = [...text].filter(([, src]) => /\brooms\.presenter\b/.test(src)).map(([f]) => f);
    assert.deepEqual(bad, []);
  });

  it('services build no repository of their own: the bundle (or its withTransaction) supplies them', () => {
    const bad = [...text]
      .filter(([file]) => !file.startsWith('db/'))
      .flatMap(([file, src]) => (src.match(/\bnew\s+\w+Repository\(/g) ?? []).map((m) => `${file}: ${m}`));
    assert.deepEqual(bad, []);
  });

  it('routes reach the database only through services, never the repositories bundle', () => {
    const bad = [...text].filter(([file, src]) => file.startsWith('http/') && /\brepos\b/.test(src)).map(([f]) => f);
    assert.deepEqual(bad, []);
  });

  it('every event subscription is in services/subscribers.ts', () => {
    const bad = [...text]
      .filter(([file, src]) => file !== 'services/subscribers.ts' && file !== 'events/bus.ts' && /\bevents\.on\(|\bbus\.on\(/.test(src))
      .map(([f]) => f);
    assert.deepEqual(bad, []);
  });
});
