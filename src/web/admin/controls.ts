/**
 * Controls of the admin settings page, one per app-config key type (runs in the browser).
 * Each control knows its key's registry definition, reads its current value in the form the
 * API accepts, and says whether it changed. Secrets are write-only: a secret input starts
 * empty and an empty secret input means "keep the stored one".
 */
import { SENSITIVE_MASK, type ConfigKey } from '../../app-config/registry.js';

export interface PageValue {
  value: string | null;
  isSet: boolean;
  isDefault: boolean;
}

export interface Group {
  id: string;
  displayName: string;
}

export interface Control {
  def: ConfigKey;
  /** The element holding label, input, default and error. */
  root: HTMLElement;
  /** The value to send, or undefined when nothing is to be sent (unchanged secret). */
  read(): string | undefined;
  /** The value the page was loaded with (or last saved), to tell changes apart. */
  initial: string | undefined;
  /** After a successful save. */
  saved(value: string): void;
}

type Attrs = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) el.append(c);
  return el;
}

const inputId = (key: string, suffix = '') => `cfg-${key.replace(/[^a-zA-Z0-9_-]/g, '-')}${suffix}`;

function parseJson(text: string | null, fallback: unknown): unknown {
  try {
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** Human form of a default for the "Default:" line. */
function describeDefault(def: ConfigKey): string {
  if (def.default === '') return 'not set';
  if (def.choices?.[def.default]) return `${def.choices[def.default]} (${def.default})`;
  if (def.type === 'bool') return ['yes', '1'].includes(def.default) ? 'on' : 'off';
  if (def.type === 'groups') return def.default === '[]' ? 'everyone (no groups)' : def.default;
  if (def.type === 'json' && (def.default === '[]' || def.default === '{}')) return 'none';
  return def.default;
}

function secretInput(def: ConfigKey, id: string, isSet: boolean, label: string): HTMLInputElement {
  return h('input', {
    id,
    type: 'password',
    autocomplete: 'new-password',
    'aria-label': label,
    placeholder: isSet ? 'set — type to replace' : 'not set',
    maxlength: def.maxLength ? String(def.maxLength) : undefined,
  });
}

function removeButton(onClick: () => void): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'remove', 'aria-label': 'Remove', text: '✕' });
  b.addEventListener('click', onClick);
  return b;
}

/** Builds the control of one key. */
export function buildControl(def: ConfigKey, v: PageValue, groups: Group[]): Control {
  const id = inputId(def.key);
  const root = h('div', { class: 'field', 'data-key': def.key });
  const label = h('label', { for: id, text: def.key });
  if (def.wip) label.append(' ', h('span', { class: 'badge', text: 'work in progress' }));
  const desc = h('p', { class: 'desc', text: def.description });
  let body: HTMLElement;
  let read: () => string | undefined;
  let initial: string | undefined = v.value ?? undefined;
  let saved = (_value: string) => {};

  if (def.type === 'bool') {
    const box = h('input', { id, type: 'checkbox' });
    box.checked = ['yes', '1', 'true', 'on'].includes((v.value ?? '').toLowerCase());
    body = h('div', { class: 'check' }, box, h('span', { text: 'enabled' }));
    read = () => (box.checked ? 'yes' : 'no');
    initial = box.checked ? 'yes' : 'no';
  } else if (def.choices || def.enum) {
    const select = h('select', { id });
    const values = def.enum ?? Object.keys(def.choices!);
    for (const val of values) {
      const text = def.choices?.[val] ? `${def.choices[val]} (${val})` : val;
      select.append(h('option', { value: val, text, selected: val === v.value }));
    }
    body = select;
    read = () => select.value;
  } else if (def.type === 'int') {
    const input = h('input', { id, inputmode: 'numeric', value: v.value ?? '' });
    body = input;
    read = () => input.value;
  } else if (def.type === 'groups' || def.type === 'string[]') {
    const chosen = new Set(parseJson(v.value, []) as string[]);
    const all = [...groups];
    for (const g of chosen) if (!all.some((x) => x.id === g)) all.push({ id: g, displayName: g });
    const boxes: HTMLInputElement[] = [];
    const list = h('div', { class: 'groups', id, role: 'group', 'aria-label': def.key });
    if (all.length === 0) list.append(h('p', { class: 'desc', text: 'No groups exist yet.' }));
    for (const g of all) {
      const box = h('input', { type: 'checkbox', value: g.id, id: inputId(def.key, `-${g.id}`) });
      box.checked = chosen.has(g.id);
      boxes.push(box);
      list.append(h('label', { class: 'check' }, box, h('span', { text: g.displayName === g.id ? g.id : `${g.displayName} (${g.id})` })));
    }
    body = list;
    read = () => JSON.stringify(boxes.filter((b) => b.checked).map((b) => b.value));
    initial = JSON.stringify([...chosen].filter((g) => all.some((x) => x.id === g)));
  } else if (def.type === 'json' && def.editor) {
    const built = buildListEditor(def, v, id);
    body = built.el;
    read = built.read;
    initial = built.read();
  } else if (def.secret) {
    const input =
      def.type === 'json'
        ? h('textarea', { id, rows: '3', placeholder: v.isSet ? 'set — type to replace' : 'not set', autocomplete: 'off' })
        : secretInput(def, id, v.isSet, def.key);
    body = input;
    read = () => (input.value === '' ? undefined : input.value);
    initial = undefined;
    saved = () => {
      input.value = '';
      input.setAttribute('placeholder', 'set — type to replace');
    };
  } else if (def.type === 'json' || (def.maxLength ?? 0) > 255) {
    const area = h('textarea', { id, rows: '3' });
    area.value = v.value ?? '';
    body = area;
    read = () => area.value;
  } else {
    const input = h('input', { id, value: v.value ?? '', maxlength: def.maxLength ? String(def.maxLength) : undefined });
    body = input;
    read = () => input.value;
  }

  const dflt = h('p', { class: 'default', text: `Default: ${describeDefault(def)}` });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  root.append(label, desc, body, dflt, error);
  const control: Control = {
    def,
    root,
    read,
    initial,
    saved(value: string) {
      control.initial = def.secret && !def.editor ? undefined : value;
      saved(value);
    },
  };
  return control;
}

/** STUN hosts, TURN entries, or signaling/recording servers with their shared secret. */
function buildListEditor(def: ConfigKey, v: PageValue, id: string): { el: HTMLElement; read: () => string } {
  const el = h('div', { class: 'list-editor', id });
  const rows = h('div', { class: 'rows' });
  const add = h('button', { type: 'button', class: 'add', text: 'Add server' });
  el.append(rows, add);
  const parsed = parseJson(v.value, def.editor === 'server-list' ? {} : []);
  const readers: Array<() => unknown> = [];

  const addRow = (fields: HTMLElement[], reader: () => unknown) => {
    const row = h('div', { class: 'row' }, ...fields);
    const entry = reader;
    readers.push(entry);
    row.append(
      removeButton(() => {
        readers.splice(readers.indexOf(entry), 1);
        row.remove();
      }),
    );
    rows.append(row);
  };

  if (def.editor === 'host-list') {
    const hostRow = (value: string) => {
      const input = h('input', { value, placeholder: 'stun.example.org:443', 'aria-label': 'STUN server' });
      addRow([input], () => input.value.trim());
    };
    for (const s of Array.isArray(parsed) ? parsed : []) hostRow(String(s));
    add.addEventListener('click', () => hostRow(''));
    return { el, read: () => JSON.stringify(readers.map((r) => r()).filter((x) => x !== '')) };
  }

  if (def.editor === 'turn-list') {
    const select = (values: string[], current: string, name: string) => {
      const s = h('select', { 'aria-label': name });
      for (const val of values) s.append(h('option', { value: val, text: val.replace(',', ' and '), selected: val === current }));
      return s;
    };
    const turnRow = (entry: Record<string, unknown>) => {
      const schemes = select(['turn,turns', 'turn', 'turns'], String(entry.schemes ?? 'turn,turns'), 'Schemes');
      const server = h('input', { value: String(entry.server ?? ''), placeholder: 'turn.example.org:3478', 'aria-label': 'TURN server' });
      const protocols = select(['udp,tcp', 'udp', 'tcp'], String(entry.protocols ?? 'udp,tcp'), 'Protocols');
      const hasSecret = typeof entry.secret === 'string' && entry.secret !== '';
      const secret = h('input', {
        type: 'password',
        autocomplete: 'new-password',
        'aria-label': 'TURN secret',
        placeholder: hasSecret ? 'secret set — type to replace' : 'secret',
      });
      addRow([schemes, server, protocols, secret], () => ({
        schemes: schemes.value,
        server: server.value.trim(),
        secret: secret.value !== '' ? secret.value : hasSecret ? SENSITIVE_MASK : '',
        protocols: protocols.value,
      }));
    };
    for (const t of Array.isArray(parsed) ? parsed : []) turnRow(t as Record<string, unknown>);
    add.addEventListener('click', () => turnRow({}));
    return { el, read: () => JSON.stringify(readers.map((r) => r())) };
  }

  // server-list: {"servers":[{"server","verify"}],"secret"}
  const obj = (parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {}) as Record<string, unknown>;
  const serverRow = (entry: Record<string, unknown>) => {
    const url = h('input', { value: String(entry.server ?? ''), placeholder: 'https://signaling.example.org', 'aria-label': 'Server URL' });
    const verify = h('input', { type: 'checkbox', 'aria-label': 'Validate TLS certificate' });
    verify.checked = entry.verify !== false;
    addRow([url, h('label', { class: 'check' }, verify, h('span', { text: 'validate TLS' }))], () => ({ server: url.value.trim(), verify: verify.checked }));
  };
  for (const s of Array.isArray(obj.servers) ? obj.servers : []) serverRow(s as Record<string, unknown>);
  add.addEventListener('click', () => serverRow({}));
  const hasSecret = typeof obj.secret === 'string' && obj.secret !== '';
  const secretId = `${id}-secret`;
  const secret = h('input', { id: secretId, type: 'password', autocomplete: 'new-password', placeholder: hasSecret ? 'set — type to replace' : 'not set' });
  el.append(h('label', { for: secretId, text: 'Shared secret' }), secret);
  return {
    el,
    read: () => {
      const servers = readers.map((r) => r()) as Array<{ server: string }>;
      const s = secret.value !== '' ? secret.value : hasSecret ? SENSITIVE_MASK : '';
      return JSON.stringify({ servers: servers.filter((x) => x.server !== ''), secret: s });
    },
  };
}
