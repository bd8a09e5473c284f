/**
 * PHP-style parsing of query strings and form bodies (parse_str): `a[]=1&a[]=2` gives a list,
 * `a[k]=v` an object, later plain keys win. Limits keep hostile input cheap.
 */

const MAX_PARAMS = 1000;
const MAX_DEPTH = 5;

type Bag = Record<string, unknown>;

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function assign(target: Bag, path: string[], value: string): void {
  let cur: any = target;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (Array.isArray(cur)) {
      if (seg === '') {
        if (last) cur.push(value);
        else {
          const next: Bag = {};
          cur.push(next);
          cur = next;
        }
        continue;
      }
      // A named key inside a list turns it into an object, as PHP arrays are both.
      const obj: Bag = {};
      cur.forEach((v: unknown, idx: number) => (obj[String(idx)] = v));
      cur = obj;
    }
    if (last) {
      if (seg === '') return; // malformed: key[] at object level handled by caller
      cur[seg] = value;
      return;
    }
    const nextSeg = path[i + 1];
    let next = cur[seg];
    if (next === undefined || typeof next !== 'object' || next === null) {
      next = nextSeg === '' ? [] : {};
      cur[seg] = next;
    }
    cur = next;
  }
}

/** Parses `a=1&b[]=2&c[x]=3` into a bag; never throws. */
export function parsePhpQuery(input: string): Bag {
  // A plain object: `__proto__` is the one key that could reach the prototype, and it is
  // skipped wherever it appears (copying a null-prototype object instead cost a microsecond).
  const out: Bag = {};
  if (!input) return out;
  const pairs = input.split('&');
  let n = 0;
  for (const pair of pairs) {
    if (!pair) continue;
    if (++n > MAX_PARAMS) break;
    const eq = pair.indexOf('=');
    // Fast path for the common `format=json`: nothing to decode, no brackets.
    if (eq > 0 && !/[%+[\]]/.test(pair)) {
      const key = pair.slice(0, eq);
      if (key !== '__proto__') out[key] = pair.slice(eq + 1);
      continue;
    }
    const rawKey = decode(eq >= 0 ? pair.slice(0, eq) : pair);
    const value = eq >= 0 ? decode(pair.slice(eq + 1)) : '';
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!m) {
      out[rawKey] = value;
      continue;
    }
    const base = m[1];
    const rest = m[2] ? [...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]).slice(0, MAX_DEPTH) : [];
    if (base === '__proto__' || rest.includes('__proto__')) continue;
    if (rest.length === 0) {
      out[base] = value;
      continue;
    }
    assign(out, [base, ...rest], value);
  }
  return out;
}
