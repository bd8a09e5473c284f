/**
 * Every document the code cites is in the repository: a comment that names `docs/….md#section`
 * names a page that exists and a heading it has (GitHub's anchor of that heading), every `….md`
 * the sources mention is a file of the repository, and nothing cites the notes the project
 * started from outside it (their facts are in docs/design.md and docs/reference/). No server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

function* files(dir: string, ext: RegExp): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p, ext);
    else if (ext.test(e.name)) yield p;
  }
}

/** GitHub's anchors of a Markdown file's headings (outside code blocks). */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let code = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) code = !code;
    if (code || !/^#{1,6} /.test(line)) continue;
    out.add(
      line
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return out;
}

const SOURCES = [...files('src', /\.ts$/), ...files('test', /\.ts$/)];
const MARKDOWN = new Set(['README.md', ...files('docs', /\.md$/)].map((f) => path.basename(f)));

describe('citations resolve inside the repository', () => {
  it('every docs/….md#section cited in src/ and test/ exists', () => {
    const missing: string[] = [];
    for (const file of SOURCES) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bdocs\/([\w/-]+\.md)(?:#([\w-]+))?/g)) {
        const page = path.join('docs', m[1]);
        if (!fs.existsSync(page)) missing.push(`${file}: ${page}`);
        else if (m[2] && !anchors(page).has(m[2])) missing.push(`${file}: ${page}#${m[2]} (no such heading)`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('every ….md named in src/ is a file of the repository', () => {
    const unknown = new Set<string>();
    for (const file of files('src', /\.ts$/)) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/[\w-]+\.md\b/g)) if (!MARKDOWN.has(m[0])) unknown.add(`${file}: ${m[0]}`);
    }
    assert.deepEqual([...unknown], []);
  });

  it('nothing cites the notes outside the repository (docs/design.md and docs/reference/ hold them)', () => {
    // Spelled in parts so that this file does not cite them itself.
    const outside = new RegExp(
      ['DESIGN', 'interface', 'talk-reference', 'talk-behaviour', 'talk-chat-calls', 'hpb-signaling'].map((n) => `\\b${n}\\.md\\b`).join('|'),
    );
    const cited = SOURCES.filter((f) => outside.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(cited, [], 'cite docs/design.md or the docs/reference/ page of the fact instead');
  });
});
