/**
 * The HTTP Range header of a download (RFC 9110 §14): one `bytes=` range, as players and the
 * apps ask for them. Several ranges are answered with the whole file (allowed by the RFC). Pure.
 */

export type RangeAnswer = { kind: 'all' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'all' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'all' };
  if (m[1] === '') {
    // The last n bytes.
    const n = Number(m[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || end < start) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end };
}
