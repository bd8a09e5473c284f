// A node:test reporter that runs next to `spec` (scripts/run-tests.mjs): after the run it says
// how many suites and tests were skipped, each with its file and reason, so a suite that quietly
// stopped running (no PostgreSQL, no Chromium, no terminal) shows in the summary, not only in the
// scrollback. A skipped suite's own tests never start, so the runner's "skipped" count omits them.
import path from 'node:path';

export default async function* skipReporter(source) {
  const skipped = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file, details } = event.data;
    if (skip === undefined || skip === false) continue;
    skipped.push({ name, kind: details?.type === 'suite' ? 'suite' : 'test', reason: typeof skip === 'string' ? skip : '(no reason given)', file });
  }
  const suites = skipped.filter((s) => s.kind === 'suite').length;
  const tests = skipped.length - suites;
  let out = `ℹ skipped suites ${suites}, skipped tests ${tests}\n`;
  for (const s of skipped) {
    const where = s.file ? path.relative(process.cwd(), s.file) : '?';
    out += `  ﹣ ${s.kind} "${s.name}" (${where}): ${s.reason}\n`;
  }
  yield out;
}
