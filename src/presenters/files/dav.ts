/**
 * WebDAV answers in Nextcloud's shapes (server apps/dav, sabre/dav): the 207 multistatus of a
 * PROPFIND with the properties Talk's apps and nc_py_api read, and the error body Sabre sends.
 * Namespaces as Nextcloud's: `d:` DAV, `oc:` owncloud, `nc:` nextcloud, `s:` sabredav. Pure.
 */
import type { FileRow } from '../../db/repositories/files.js';
import { encodePath, hasPreview } from '../../domain/files/paths.js';

/** Suffix of `oc:id` (Nextcloud appends its instance id to the zero-padded file id). */
const INSTANCE_ID = 'ocparley';

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Nextcloud's `oc:id` / `OC-FileId` header value. */
export function ocFileId(id: number): string {
  return `${String(id).padStart(8, '0')}${INSTANCE_ID}`;
}

/** The href of a user's file or folder (folders end with '/'). */
export function davHref(user: string, row: Pick<FileRow, 'path' | 'is_dir'>): string {
  const base = `/remote.php/dav/files/${encodeURIComponent(user)}/${encodePath(row.path)}`;
  return row.is_dir && row.path !== '' ? `${base}/` : base;
}

/**
 * Own files: read, share, delete, rename, move (Nextcloud's letters); files can be written,
 * folders get children. A file shared with the user (`received`) is shared (S) and readable (G) only.
 */
export function davPermissions(row: Pick<FileRow, 'is_dir'> & { received?: boolean }): string {
  if (row.received) return 'SG';
  return row.is_dir ? 'RGDNVCK' : 'RGDNVW';
}

export interface QuotaInfo {
  used: number;
  available: number;
}

function response(user: string, row: FileRow, quota: QuotaInfo | undefined, favorite: boolean): string {
  const props = [
    `<d:getlastmodified>${new Date(row.mtime * 1000).toUTCString()}</d:getlastmodified>`,
    `<d:getetag>&quot;${escapeXml(row.etag)}&quot;</d:getetag>`,
    row.is_dir ? '<d:resourcetype><d:collection/></d:resourcetype>' : '<d:resourcetype/>',
    `<oc:fileid>${row.id}</oc:fileid>`,
    `<oc:id>${ocFileId(row.id)}</oc:id>`,
    `<oc:permissions>${davPermissions(row)}</oc:permissions>`,
    `<oc:size>${row.size}</oc:size>`,
    `<oc:owner-id>${escapeXml(row.owner)}</oc:owner-id>`,
    `<nc:has-preview>${hasPreview(row)}</nc:has-preview>`,
    `<oc:favorite>${favorite ? 1 : 0}</oc:favorite>`,
  ];
  if (!row.is_dir) {
    props.push(`<d:getcontentlength>${row.size}</d:getcontentlength>`, `<d:getcontenttype>${escapeXml(row.mimetype)}</d:getcontenttype>`);
  } else if (quota) {
    props.push(`<d:quota-used-bytes>${quota.used}</d:quota-used-bytes>`, `<d:quota-available-bytes>${quota.available}</d:quota-available-bytes>`);
  }
  return (
    `<d:response><d:href>${escapeXml(davHref(user, row))}</d:href>` +
    `<d:propstat><d:prop>${props.join('')}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`
  );
}

/** The 207 body of a PROPFIND: the resource, then (Depth 1) its entries. */
export function multistatus(user: string, rows: FileRow[], quota?: QuotaInfo, favorites: ReadonlySet<number> = new Set()): string {
  return (
    `<?xml version="1.0"?>\n<d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">` +
    rows.map((r) => response(user, r, quota, favorites.has(Number(r.id)))).join('') +
    `</d:multistatus>\n`
  );
}

/**
 * The 207 answer of a PROPPATCH (sabre/dav's): each property named with the status of its
 * change, 200 when all were applied; with a refused one, 403 for it and 424 (failed dependency)
 * for the others, none of which was applied.
 */
export function propPatchStatus(user: string, row: FileRow, props: Array<{ ns: string; name: string }>, refused: Array<{ ns: string; name: string }>): string {
  const key = (p: { ns: string; name: string }) => `${p.ns} ${p.name}`;
  const bad = new Set(refused.map(key));
  const element = (p: { ns: string; name: string }) => `<x:${escapeXml(p.name)} xmlns:x="${escapeXml(p.ns)}"/>`;
  const group = (list: Array<{ ns: string; name: string }>, status: string) =>
    list.length ? `<d:propstat><d:prop>${list.map(element).join('')}</d:prop><d:status>HTTP/1.1 ${status}</d:status></d:propstat>` : '';
  const unique = [...new Map(props.map((p) => [key(p), p])).values()];
  const body = refused.length
    ? group(
        unique.filter((p) => bad.has(key(p))),
        '403 Forbidden',
      ) +
      group(
        unique.filter((p) => !bad.has(key(p))),
        '424 Failed Dependency',
      )
    : group(unique, '200 OK');
  return (
    `<?xml version="1.0"?>\n<d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">` +
    `<d:response><d:href>${escapeXml(davHref(user, row))}</d:href>${body}</d:response></d:multistatus>\n`
  );
}

/** Sabre's exception class for a status, as Nextcloud names them in error bodies. */
const EXCEPTIONS: Record<number, string> = {
  400: 'Sabre\\DAV\\Exception\\BadRequest',
  401: 'Sabre\\DAV\\Exception\\NotAuthenticated',
  403: 'Sabre\\DAV\\Exception\\Forbidden',
  404: 'Sabre\\DAV\\Exception\\NotFound',
  405: 'Sabre\\DAV\\Exception\\MethodNotAllowed',
  409: 'Sabre\\DAV\\Exception\\Conflict',
  412: 'Sabre\\DAV\\Exception\\PreconditionFailed',
  413: 'OCA\\DAV\\Connector\\Sabre\\Exception\\EntityTooLarge',
  415: 'Sabre\\DAV\\Exception\\UnsupportedMediaType',
  416: 'Sabre\\DAV\\Exception\\RequestedRangeNotSatisfiable',
  429: 'OCA\\DAV\\Connector\\Sabre\\Exception\\TooManyRequests',
  501: 'Sabre\\DAV\\Exception\\NotImplemented',
  507: 'Sabre\\DAV\\Exception\\InsufficientStorage',
};

/** Sabre's error body. */
export function davErrorXml(status: number, message: string): string {
  const exception = EXCEPTIONS[status] ?? 'Sabre\\DAV\\Exception';
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<d:error xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns">` +
    `<s:exception>${escapeXml(exception)}</s:exception><s:message>${escapeXml(message)}</s:message></d:error>\n`
  );
}
