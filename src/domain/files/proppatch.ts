/**
 * A WebDAV PROPPATCH body (RFC 4918 §9.2, as sabre/dav reads it for Nextcloud): the properties
 * to set (with their text) and to remove, each named by namespace URI and local name, whatever
 * prefixes the client chose. Parsed by fast-xml-parser; pure.
 */
import { XMLParser } from 'fast-xml-parser';

export interface PropName {
  ns: string;
  name: string;
}
export interface PropSet extends PropName {
  value: string;
}
export type PropPatch = { set: PropSet[]; remove: PropName[] } | { problem: string };

/** Nextcloud's property namespaces (docs/files.md "For apps: WebDAV"). */
export const DAV_NS = 'DAV:';
export const OC_NS = 'http://owncloud.org/ns';

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: true,
  parseTagValue: false,
  processEntities: true,
  // No DOCTYPE: an entity declared in the body is not expanded (no entity expansion attacks).
  htmlEntities: false,
});

/** The element name of a preserveOrder node (its one key besides ':@'). */
function tagOf(node: Node): string | undefined {
  return Object.keys(node).find((k) => k !== ':@');
}

/** Namespace declarations of a node on top of its parent's. */
function scope(node: Node, parent: Map<string, string>): Map<string, string> {
  const attrs = node[':@'];
  if (!attrs) return parent;
  const next = new Map(parent);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'xmlns') next.set('', v);
    else if (k.startsWith('xmlns:')) next.set(k.slice(6), v);
  }
  return next;
}

function qualify(tag: string, ns: Map<string, string>): PropName | undefined {
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const uri = ns.get(prefix);
  return uri === undefined ? undefined : { ns: uri, name: colon < 0 ? tag : tag.slice(colon + 1) };
}

function children(node: Node, tag: string): Node[] {
  const c = node[tag];
  return Array.isArray(c) ? (c as Node[]) : [];
}

function textOf(node: Node, tag: string): string {
  return children(node, tag)
    .map((c) => (typeof c['#text'] === 'string' ? c['#text'] : ''))
    .join('');
}

export function parsePropPatch(xml: string): PropPatch {
  if (/<!DOCTYPE/i.test(xml)) return { problem: 'A DOCTYPE is not allowed in the request body' };
  let doc: Node[];
  try {
    doc = parser.parse(xml, true) as Node[];
  } catch {
    return { problem: 'The request body is not well-formed XML' };
  }
  const root = doc.find((n) => tagOf(n) !== undefined && tagOf(n) !== '?xml');
  const rootTag = root && tagOf(root);
  if (!root || !rootTag) return { problem: 'The request body is empty' };
  const rootNs = scope(root, new Map());
  const rootName = qualify(rootTag, rootNs);
  if (!rootName || rootName.ns !== DAV_NS || rootName.name !== 'propertyupdate') return { problem: 'The root element must be {DAV:}propertyupdate' };
  const set: PropSet[] = [];
  const remove: PropName[] = [];
  for (const action of children(root, rootTag)) {
    const actionTag = tagOf(action);
    if (!actionTag || actionTag === '#text') continue;
    const actionNs = scope(action, rootNs);
    const what = qualify(actionTag, actionNs);
    if (!what || what.ns !== DAV_NS || (what.name !== 'set' && what.name !== 'remove')) return { problem: `Unexpected element ${actionTag}` };
    for (const prop of children(action, actionTag)) {
      const propTag = tagOf(prop);
      if (!propTag || propTag === '#text') continue;
      const propNs = scope(prop, actionNs);
      const p = qualify(propTag, propNs);
      if (!p || p.ns !== DAV_NS || p.name !== 'prop') return { problem: `Unexpected element ${propTag}` };
      for (const item of children(prop, propTag)) {
        const itemTag = tagOf(item);
        if (!itemTag || itemTag === '#text') continue;
        const name = qualify(itemTag, scope(item, propNs));
        if (!name) return { problem: `Undeclared namespace prefix in ${itemTag}` };
        if (what.name === 'set') set.push({ ...name, value: textOf(item, itemTag) });
        else remove.push(name);
      }
    }
  }
  return { set, remove };
}
