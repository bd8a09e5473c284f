/**
 * XML output exactly as Nextcloud's OCS responder writes it with XMLWriter
 * (docs/reference/envelope-and-errors.md#the-envelope): one-space indentation, numeric keys become <element>,
 * null is self-closed, false is an empty element, true is 1, empty arrays self-close,
 * keys starting with @ become attributes.
 */

function escapeText(s: string): string {
  return s.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#13;'));
}

function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

function isEmptyContainer(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (v && typeof v === 'object') return Object.keys(v).filter((k) => !k.startsWith('@')).length === 0;
  return false;
}

function scalarText(v: unknown): string {
  if (v === false) return '';
  if (v === true) return '1';
  return String(v);
}

function entries(v: unknown): Array<[string, unknown]> {
  if (Array.isArray(v)) return v.map((x, i) => [String(i), x]);
  return Object.entries(v as Record<string, unknown>);
}

function writeNode(out: string[], name: string, value: unknown, depth: number): void {
  const pad = ' '.repeat(depth);
  if (value === null || value === undefined) {
    out.push(`${pad}<${name}/>`);
    return;
  }
  if (typeof value === 'object') {
    const all = entries(value);
    const attrs = all.filter(([k]) => k.startsWith('@'));
    const children = all.filter(([k]) => !k.startsWith('@'));
    const attrText = attrs.map(([k, v]) => ` ${k.slice(1)}="${escapeAttr(scalarText(v))}"`).join('');
    if (isEmptyContainer(value)) {
      out.push(`${pad}<${name}${attrText}/>`);
      return;
    }
    out.push(`${pad}<${name}${attrText}>`);
    for (const [k, v] of children) writeNode(out, /^\d+$/.test(k) ? 'element' : k, v, depth + 1);
    out.push(`${pad}</${name}>`);
    return;
  }
  out.push(`${pad}<${name}>${escapeText(scalarText(value))}</${name}>`);
}

/** Serialises an OCS document ({ocs:{meta, data}}) to XML text. */
export function toXml(doc: Record<string, unknown>): string {
  const out: string[] = ['<?xml version="1.0"?>'];
  for (const [k, v] of Object.entries(doc)) writeNode(out, k, v, 0);
  return out.join('\n') + '\n';
}
