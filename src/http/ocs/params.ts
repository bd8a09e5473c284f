/**
 * Request data: query string, form or JSON body and route placeholders merged into one bag
 * (route placeholders win, as in Nextcloud), then coerced against the route's TypeBox schema.
 *
 * Coercion is PHP-compatible where that is harmless (numeric strings for ints, "true"/"false"/
 * "1"/"0" for bools, numbers for strings) and strict where PHP would silently turn garbage into
 * 0: a value of the wrong type is a 400 `{error: <field>}` that changes nothing.
 *
 * Two rules hold for every parameter of every route, so that both databases answer the same
 * and neither answers 500 (docs/security.md): a NUL byte anywhere in a text value (query, body,
 * path; nested values and keys included) is a 400 naming the field — PostgreSQL refuses NUL in
 * text, SQLite would store it — and a whole number must be a safe integer (|n| < 2^53, inside
 * the 64-bit range of every integer column), so `1e20` or `-1e308` is a 400, not an overflow.
 */
import type { TSchema, TObject } from '@sinclair/typebox';
import { invalidField } from '../../domain/errors.js';

type Bag = Record<string, unknown>;

export function mergeParams(query: unknown, body: unknown, routeParams: unknown): Bag {
  const out: Bag = {};
  if (query && typeof query === 'object') Object.assign(out, query);
  if (body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body)) Object.assign(out, body);
  if (routeParams && typeof routeParams === 'object') Object.assign(out, routeParams);
  return out;
}

class CoerceError extends Error {}

/** Nesting checked for NUL bytes; deeper values are refused (no parameter is nested this far). */
const MAX_SCAN_DEPTH = 32;

/** Whether `value` holds a NUL byte in a string or key, or nests deeper than MAX_SCAN_DEPTH. */
function hasNulOrTooDeep(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  // Uploaded bytes (multipart file parts) are data, not text.
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  if (depth >= MAX_SCAN_DEPTH) return true;
  if (Array.isArray(value)) return value.some((v) => hasNulOrTooDeep(v, depth + 1));
  for (const [k, v] of Object.entries(value)) if (k.includes('\0') || hasNulOrTooDeep(v, depth + 1)) return true;
  return false;
}

/**
 * 400 for the first bag entry (or key) with a NUL byte: `data.error` is the field's reason
 * (`errorNames`, the contract's name for it, else the field), the message names the field.
 */
export function refuseNulBytes(bag: Bag, errorNames: ReadonlyMap<string, string> = new Map()): void {
  for (const [name, value] of Object.entries(bag)) {
    if (name.includes('\0') || hasNulOrTooDeep(value)) {
      const field = name.replace(/\0/g, '');
      throw invalidField(errorNames.get(name) ?? field, `${field} must not contain a NUL byte (or nest too deeply)`);
    }
  }
}

const TRUE_STRINGS = ['true', '1', 'yes', 'on'];
const FALSE_STRINGS = ['false', '0', '', 'no', 'off'];

function describe(schema: any): string {
  if (schema.anyOf) return schema.anyOf.map(describe).join(' or ');
  switch (schema.type) {
    case 'integer':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'array':
      return 'a list';
    case 'object':
      return 'an object';
    case 'null':
      return 'null';
    default:
      return 'a value';
  }
}

function coerceValue(schema: any, value: unknown, name: string): unknown {
  if (schema.anyOf) {
    for (const alt of schema.anyOf) {
      try {
        return coerceValue(alt, value, name);
      } catch (e) {
        if (!(e instanceof CoerceError)) throw e;
      }
    }
    throw new CoerceError(`${name} must be ${describe(schema)}`);
  }
  switch (schema.type) {
    case 'integer':
    case 'number': {
      let n: number;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'boolean') n = value ? 1 : 0;
      // Up to 16 digits: every safe integer as a string, as it is as a JSON number (the check below refuses larger ones).
      else if (typeof value === 'string' && /^\s*-?\d{1,16}(\.0+)?\s*$/.test(value)) n = Number(value.trim());
      else if (typeof value === 'string' && schema.type === 'number' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) n = Number(value);
      else throw new CoerceError(`${name} must be ${describe(schema)}`);
      if (!Number.isFinite(n) || (schema.type === 'integer' && !Number.isSafeInteger(n))) throw new CoerceError(`${name} must be ${describe(schema)}`);
      if (schema.minimum !== undefined && n < schema.minimum) throw new CoerceError(`${name} must be at least ${schema.minimum}`);
      if (schema.maximum !== undefined && n > schema.maximum) throw new CoerceError(`${name} must be at most ${schema.maximum}`);
      if (schema.enum && !schema.enum.includes(n)) throw new CoerceError(`${name} must be one of ${schema.enum.join(', ')}`);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number' && (value === 0 || value === 1)) return value === 1;
      if (typeof value === 'string') {
        const t = value.trim().toLowerCase();
        if (TRUE_STRINGS.includes(t)) return true;
        if (FALSE_STRINGS.includes(t)) return false;
      }
      throw new CoerceError(`${name} must be true or false`);
    }
    case 'string': {
      let s: string;
      if (typeof value === 'string') s = value;
      else if (typeof value === 'number' && Number.isFinite(value)) s = String(value);
      else throw new CoerceError(`${name} must be a string`);
      if (schema.maxLength !== undefined && [...s].length > schema.maxLength) {
        throw new CoerceError(`${name} must be at most ${schema.maxLength} characters`);
      }
      if (schema.minLength !== undefined && [...s].length < schema.minLength) {
        throw new CoerceError(`${name} must be at least ${schema.minLength} characters`);
      }
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(s)) throw new CoerceError(`${name} has an invalid format`);
      if (schema.enum && !schema.enum.includes(s)) throw new CoerceError(`${name} must be one of ${schema.enum.join(', ')}`);
      if (schema.const !== undefined && s !== schema.const) throw new CoerceError(`${name} must be ${schema.const}`);
      return s;
    }
    case 'null': {
      if (value === null || value === '') return null;
      throw new CoerceError(`${name} must be null`);
    }
    case 'array': {
      let list: unknown[];
      if (Array.isArray(value)) list = value;
      else if (value && typeof value === 'object') list = Object.values(value as Bag);
      else if (value === '') list = [];
      else throw new CoerceError(`${name} must be a list`);
      if (schema.maxItems !== undefined && list.length > schema.maxItems) throw new CoerceError(`${name} must have at most ${schema.maxItems} entries`);
      return schema.items ? list.map((v, i) => coerceValue(schema.items, v, `${name}[${i}]`)) : list;
    }
    case 'object': {
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
      throw new CoerceError(`${name} must be an object`);
    }
    default:
      return value;
  }
}

/**
 * Compiles an object schema once (at route registration) into a function that coerces a merged
 * bag against it. Unknown extra fields are ignored (clients send `format` and friends); a
 * field's `x-error` names the `data.error` reason on failure.
 */
export function compileParams<T>(schema: TObject | undefined): (bag: Bag) => T {
  if (!schema) {
    return (bag) => {
      refuseNulBytes(bag);
      return bag as T;
    };
  }
  const required = new Set<string>((schema as any).required ?? []);
  const fields = Object.entries(schema.properties as Record<string, TSchema>).map(([name, prop]) => {
    const p = prop as any;
    // Only object defaults need a copy per request (a handler may change its own params).
    const copyDefault = p.default !== null && typeof p.default === 'object';
    return { name, p, errorName: (p['x-error'] as string | undefined) ?? name, required: required.has(name), copyDefault };
  });
  const errorNames = new Map(fields.map((f) => [f.name, f.errorName]));
  return (bag) => {
    refuseNulBytes(bag, errorNames);
    const out: Bag = {};
    for (const f of fields) {
      const value = bag[f.name];
      if (value === undefined) {
        if (f.p.default !== undefined) out[f.name] = f.copyDefault ? structuredClone(f.p.default) : f.p.default;
        else if (f.required) throw invalidField(f.errorName, `${f.name} is required`);
        continue;
      }
      try {
        out[f.name] = coerceValue(f.p, value, f.name);
      } catch (e) {
        if (e instanceof CoerceError) throw invalidField(f.errorName, e.message);
        throw e;
      }
    }
    return out as T;
  };
}
