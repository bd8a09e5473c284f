/**
 * The shell examples of README.md and docs/*.md, run as written against a real Parley, so the
 * documentation cannot go stale. Every ```sh block runs with bash in the order a reader meets
 * them: the README first (it creates alice and bob), then the pages in docs/ by name, one bash
 * per page (a page's blocks share its variables). One fixture stands for the reader's server:
 * the admin account is made with the password the README puts in PARLEY_PASSWORD, which every
 * page's bash has in its environment, as a reader who followed the README has.
 *
 * - `http://localhost:8080` is replaced with the test server's address.
 * - `parley …` and `npx parley …` run the command line from these sources on the server's
 *   database (DATA_DIR, or DATABASE_URL and DATABASE_SCHEMA).
 * - A line `# → <text>` states an output: each must equal a line the block printed, in order,
 *   where `…` stands for any text (ids, times and tokens differ from run to run).
 * - A block that cannot run here (it starts a server, runs the test suite or a bench, or needs a
 *   throttled client address) is preceded by `<!-- docs-examples: skip (why) -->`.
 * - A block fails when it prints `error: …` (a refused command), a curl or jq error, or a bash
 *   "command not found".
 *
 * jq and curl must be installed (Debian's packages; .ci/run's machine has them).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dialects, startParley, type Parley } from './helpers/parley.js';

interface Block {
  file: string;
  line: number;
  code: string;
  skip?: string;
}

const SKIP = /^<!-- docs-examples: skip \((.+)\) -->$/;
const STATED = /^\s*# → (.*)$/;
const FAILED = /^(error: |curl: \(\d+\)|jq: |parse error|.*: command not found)/m;

/** The ```sh blocks of one Markdown file, with the opt-out marker that precedes a block. */
function shellBlocks(file: string): Block[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const start = i;
    const code: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) code.push(lines[i]);
    let prev = start - 1;
    while (prev >= 0 && lines[prev].trim() === '') prev--;
    const skip = prev >= 0 ? SKIP.exec(lines[prev].trim())?.[1] : undefined;
    blocks.push({ file, line: start + 1, code: code.join('\n'), skip });
  }
  return blocks;
}

const FILES = [
  'README.md',
  ...fs
    .readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const BLOCKS = FILES.map((f) => ({ file: f, blocks: shellBlocks(f) })).filter((f) => f.blocks.length > 0);

/** The README's example password: the fixture's admin password, so the README runs as written. */
function readmePassword(): string {
  const m = /^PARLEY_PASSWORD='([^']+)'/m.exec(fs.readFileSync('README.md', 'utf8'));
  assert.ok(m, "README.md sets PARLEY_PASSWORD='…' in its first requests");
  return m[1];
}

/** Turns a stated output into a pattern: `…` is any text, everything else literal. */
function statedPattern(text: string): RegExp {
  return new RegExp(
    '^' +
      text
        .split('…')
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
  );
}

/** Each stated output of `block` equals a printed line, in order. */
function checkStated(block: Block, output: string, stderr: string): void {
  const printed = output.split('\n').map((l) => l.trimEnd());
  let at = 0;
  for (const line of block.code.split('\n')) {
    const stated = STATED.exec(line)?.[1];
    if (stated === undefined) continue;
    const pattern = statedPattern(stated);
    while (at < printed.length && !pattern.test(printed[at])) at++;
    assert.ok(at < printed.length, `${block.file}:${block.line} states "${stated}", not printed (in order):\n${output}\n--- stderr\n${stderr}`);
    at++;
  }
}

function run(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    // A page's blocks run as one script; operators.md starts about twenty `parley` commands, each
    // a Node process, which took over two minutes on a loaded 2-core machine.
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ stdout, stderr });
    });
  });
}

describe('docs examples: the blocks', () => {
  it('every ```sh block runs, or says why it cannot', () => {
    const all = BLOCKS.flatMap((f) => f.blocks);
    assert.ok(all.length > 10, 'the README and docs have shell examples');
    const skipped = all.filter((b) => b.skip !== undefined);
    for (const b of skipped) assert.ok(b.skip!.trim().length > 10, `${b.file}:${b.line} gives a reason to skip`);
    // Opting out is for what cannot run against a test server (starting servers, the suite, the
    // benches, a throttled address, SIP hardware): a new opt-out has to raise this bound.
    assert.ok(skipped.length <= 9, `${skipped.length} of ${all.length} blocks skipped: ${skipped.map((b) => `${b.file}:${b.line}`).join(', ')}`);
  });

  it('jq and curl are installed (the examples use them)', () => {
    for (const tool of ['jq', 'curl']) {
      const r = spawnSync(tool, ['--version']);
      assert.equal(r.status, 0, `${tool} is needed by the documentation's examples (apt-get install ${tool})`);
    }
  });
});

for (const dialect of dialects()) {
  describe(`docs examples [${dialect}]`, () => {
    let p: Parley;
    let bin: string;
    let env: NodeJS.ProcessEnv;
    const password = readmePassword();

    before(async () => {
      p = await startParley(dialect, { env: { ADMIN_USER: 'admin', ADMIN_PASSWORD: password } });
      bin = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-docs-bin-'));
      const parley = path.join(bin, 'parley');
      // tsx by its resolved URL: the examples run in a directory of their own, outside the checkout.
      fs.writeFileSync(parley, `#!/bin/sh\nexec "${process.execPath}" --import "${import.meta.resolve('tsx')}" "${path.resolve('src/main.ts')}" "$@"\n`);
      fs.chmodSync(parley, 0o755);
      env = { ...process.env, ...p.env, PATH: `${bin}:${process.env.PATH}`, PARLEY_PASSWORD: password };
    });

    after(async () => {
      await p?.close();
      if (bin) fs.rmSync(bin, { recursive: true, force: true });
    });

    for (const { file, blocks } of BLOCKS) {
      const runnable = blocks.filter((b) => b.skip === undefined);
      if (runnable.length === 0) continue;
      it(`${file}: ${runnable.length} example(s) run as written`, async () => {
        const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-docs-'));
        try {
          // `npx parley` runs these sources too, not a dist/ that may be older.
          const prelude = 'npx() { if [ "$1" = parley ]; then shift; parley "$@"; else command npx "$@"; fi; }\n';
          const script = prelude + runnable.map((b, i) => `printf '\\n@@@block ${i}\\n'\n${b.code.replaceAll('http://localhost:8080', p.url)}\n`).join('');
          const { stdout, stderr } = await run(script, env, work);
          const parts = stdout.split(/\n@@@block \d+\n/).slice(1);
          assert.equal(parts.length, runnable.length, `every block of ${file} ran:\n${stdout}\n--- stderr\n${stderr}`);
          assert.doesNotMatch(stderr, FAILED, `${file}: a command failed:\n${stderr}\n--- stdout\n${stdout}`);
          runnable.forEach((b, i) => checkStated(b, parts[i], stderr));
        } finally {
          fs.rmSync(work, { recursive: true, force: true });
        }
      });
    }
  });
}
