/**
 * Counters, gauges and histograms with labels, rendered in the OpenMetrics text format
 * (docs/operators.md "Metrics"). Pure: no I/O; MetricsService feeds and renders them.
 */

export type Labels = Record<string, string>;

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function labelText(labels: Labels, extra?: [string, string]): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

/**
 * Series key. Every family is fed with the same label names in the same order, so the values
 * alone identify a series; this runs on every request, so it avoids JSON and array building.
 */
function keyOf(labels: Labels): string {
  let k = '';
  for (const name in labels) k += labels[name] + '\u0001';
  return k;
}

const num = (n: number) => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))));

export interface MetricFamily {
  render(): string[];
}

export class Counter implements MetricFamily {
  private readonly series = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const k = keyOf(labels);
    const s = this.series.get(k);
    if (s) s.value += by;
    else this.series.set(k, { labels, value: by });
  }

  render(): string[] {
    const out = [`# TYPE ${this.name} counter`, `# HELP ${this.name} ${this.help}`];
    for (const s of this.series.values()) out.push(`${this.name}_total${labelText(s.labels)} ${num(s.value)}`);
    return out;
  }
}

export class Histogram implements MetricFamily {
  private readonly series = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: number[],
  ) {}

  observe(value: number, labels: Labels = {}): void {
    const k = keyOf(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]) s.buckets[i]++;
    s.sum += value;
    s.count++;
  }

  render(): string[] {
    const out = [`# TYPE ${this.name} histogram`, `# HELP ${this.name} ${this.help}`];
    for (const s of this.series.values()) {
      this.bounds.forEach((b, i) => out.push(`${this.name}_bucket${labelText(s.labels, ['le', num(b)])} ${s.buckets[i]}`));
      out.push(`${this.name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.count}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${num(s.sum)}`);
    }
    return out;
  }
}

/** A counter kept elsewhere (db.stats.queries), rendered from its current value. */
export function counterValue(name: string, help: string, value: number): string[] {
  return [`# TYPE ${name} counter`, `# HELP ${name} ${help}`, `${name}_total ${num(value)}`];
}

/** A gauge whose samples are supplied at render time. */
export function gauge(name: string, help: string, samples: Array<{ labels?: Labels; value: number }>, unit?: string): string[] {
  const out = [`# TYPE ${name} gauge`];
  if (unit) out.push(`# UNIT ${name} ${unit}`);
  out.push(`# HELP ${name} ${help}`);
  for (const s of samples) out.push(`${name}${labelText(s.labels ?? {})} ${num(s.value)}`);
  return out;
}

export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** The whole exposition: families, then the mandatory `# EOF`. */
export function exposition(lines: string[]): string {
  return lines.join('\n') + '\n# EOF\n';
}
