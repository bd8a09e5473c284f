/**
 * The OCS envelope (docs/reference/envelope-and-errors.md#the-envelope): v1 and v2 meta rules, JSON and XML bodies.
 * Every API answer goes through `renderOcs`.
 */
import { IdKeyedObject, JsonArrayOfParts, JsonBytes, WrittenList } from './json-bytes.js';
import { toXml } from './xml.js';

export type OcsVersion = 1 | 2;
export type OcsFormat = 'json' | 'xml';

export interface RenderedResponse {
  httpStatus: number;
  contentType: string;
  /** A Buffer when the data was a WrittenList answered in JSON. */
  body: string | Buffer;
}

export interface OcsMeta {
  status: 'ok' | 'failure';
  statuscode: number;
  message: string;
  totalitems?: string;
  itemsperpage?: string;
}

/**
 * Builds meta and HTTP status from the controller status (`status`) and an optional special
 * OCS code (997 not logged in, 998 not found).
 */
function ocsMeta(version: OcsVersion, status: number, message: string | undefined, ocsCode?: number): { meta: OcsMeta; httpStatus: number } {
  const code = ocsCode ?? status;
  if (version === 1) {
    // v1: 200 becomes 100; everything answers HTTP 200 except "not logged in".
    const statuscode = code === 200 ? 100 : code;
    const ok = statuscode === 100;
    return {
      meta: {
        status: ok ? 'ok' : 'failure',
        statuscode,
        message: ok ? 'OK' : (message ?? ''),
        totalitems: '',
        itemsperpage: '',
      },
      httpStatus: code === 997 ? 401 : 200,
    };
  }
  let httpStatus = code;
  if (code === 997) httpStatus = 401;
  else if (code === 998) httpStatus = 404;
  else if (code === 996 || code === 999) httpStatus = 500;
  else if (code < 200 || code > 600) httpStatus = 400;
  const ok = httpStatus >= 200 && httpStatus < 300;
  return { meta: { status: ok ? 'ok' : 'failure', statuscode: code, message: ok ? 'OK' : (message ?? '') }, httpStatus };
}

export function renderOcs(version: OcsVersion, format: OcsFormat, status: number, data: unknown, message?: string, ocsCode?: number): RenderedResponse {
  const { meta, httpStatus } = ocsMeta(version, status, message, ocsCode);
  if (format === 'json') {
    return { httpStatus, contentType: 'application/json; charset=utf-8', body: jsonEnvelope(meta, data) };
  }
  const plain =
    data instanceof WrittenList ? data.records : data instanceof JsonArrayOfParts ? data.records() : data instanceof IdKeyedObject ? data.values() : data;
  return { httpStatus, contentType: 'application/xml; charset=utf-8', body: toXml({ ocs: { meta, data: plain === undefined ? null : plain } }) };
}

/** The ok v2 meta every successful v2 answer carries, serialized once. */
const OK_V2_META = JSON.stringify({ status: 'ok', statuscode: 200, message: 'OK' });

/**
 * `JSON.stringify({ocs: {meta, data}})`, byte for byte, written around the serialized data: the
 * envelope is a fixed frame, so only the data (a 228 KB list, a 5,000-record participant list)
 * goes through the serializer and the wrapping object is never built. The common v2 ok meta is
 * a constant string.
 */
function jsonEnvelope(meta: OcsMeta, data: unknown): string | Buffer {
  const m = meta.statuscode === 200 && meta.totalitems === undefined && meta.status === 'ok' && meta.message === 'OK' ? OK_V2_META : JSON.stringify(meta);
  if (data instanceof JsonArrayOfParts) return data.inFrame('{"ocs":{"meta":' + m + ',"data":', '}}');
  if (data instanceof WrittenList) {
    // The same frame, with the list written as bytes by its compiled record writer.
    const w = new JsonBytes();
    w.utf8('{"ocs":{"meta":' + m + ',"data":');
    data.writeJson(w);
    w.utf8('}}');
    return w.take();
  }
  if (data instanceof IdKeyedObject) return '{"ocs":{"meta":' + m + ',"data":' + data.json() + '}}';
  // undefined and functions serialize to nothing inside JSON.stringify's object; null here.
  const d = data === undefined ? 'null' : (JSON.stringify(data) ?? 'null');
  return '{"ocs":{"meta":' + m + ',"data":' + d + '}}';
}

/**
 * Format selection (docs/reference/envelope-and-errors.md#format-selection): `format` parameter first, then the Accept header (first part that is
 * exactly json or xml after dropping `application/` and media-type parameters), else XML.
 */
export function negotiateFormat(formatParam: unknown, accept: string | undefined, useAccept = true): OcsFormat {
  if (typeof formatParam === 'string') {
    const f = formatParam.trim().toLowerCase();
    if (f === 'json' || f === 'xml') return f;
  }
  if (useAccept && accept) {
    for (const part of accept.split(',')) {
      const p = part
        .split(';')[0]
        .trim()
        .toLowerCase()
        .replace(/^application\//, '');
      if (p === 'json' || p === 'xml') return p;
    }
  }
  return 'xml';
}

export function versionFromUrl(url: string): OcsVersion {
  return url.startsWith('/ocs/v1.php') ? 1 : 2;
}
