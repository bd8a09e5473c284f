/**
 * The admin settings page (docs/operators.md "Admin settings page"), in the browser. Sections and
 * controls come from the app-config registry itself (imported, not repeated), values from the
 * state the server embeds. A section's Save button validates each changed control exactly as the
 * server does (normalizeConfigValue), then stores it through the OCS app-config API; a refused
 * value shows the server's message next to its control.
 */
import { CONFIG_KEYS, CONFIG_SECTIONS, ConfigValueError, INTERNAL_SECTION, normalizeConfigValue } from '../../app-config/registry.js';
import { buildControl, h, type Control, type Group, type PageValue } from './controls.js';
import { ocsRequest } from './ocs.js';
import { trustedServersBlock } from './trusted-servers.js';

interface PageState {
  values: Record<string, PageValue>;
  groups: Group[];
  groupsTruncated: boolean;
  apiBase: string;
  user: string;
}

const state = JSON.parse(document.getElementById('parley-state')!.textContent!) as PageState;

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function showError(control: Control, message: string): void {
  const el = control.root.querySelector<HTMLElement>('.error')!;
  el.textContent = message;
  el.hidden = message === '';
  control.root.classList.toggle('invalid', message !== '');
}

/** Stores one value; returns the server's error message, or null when stored. */
async function store(key: string, value: string): Promise<string | null> {
  const outcome = await ocsRequest('POST', state.apiBase + encodeURIComponent(key), { value });
  return outcome.ok ? null : outcome.message;
}

async function saveSection(controls: Control[], status: HTMLElement): Promise<void> {
  status.textContent = 'Saving…';
  let stored = 0;
  let refused = 0;
  for (const control of controls) {
    const raw = control.read();
    if (raw === undefined || raw === control.initial) {
      showError(control, '');
      continue;
    }
    let value: string;
    try {
      value = normalizeConfigValue(control.def, raw);
    } catch (e) {
      if (!(e instanceof ConfigValueError)) throw e;
      showError(control, `${control.def.key} ${e.message}`);
      refused++;
      continue;
    }
    const problem = await store(control.def.key, value);
    if (problem) {
      showError(control, problem);
      refused++;
    } else {
      showError(control, '');
      control.saved(raw);
      stored++;
    }
  }
  status.textContent = refused ? `${refused} value(s) refused; see the messages above.` : stored ? 'Saved.' : 'Nothing changed.';
  status.className = refused ? 'status bad' : 'status ok';
}

function signalingWarning(): HTMLElement | null {
  const servers = state.values.signaling_servers?.value ?? '';
  const hidden = ['yes', '1'].includes(state.values.hide_signaling_warning?.value ?? '');
  if (hidden || /"server"\s*:\s*"(https?|wss?):/i.test(servers)) return null;
  return h('p', {
    class: 'warning',
    role: 'note',
    text: 'No high-performance backend is configured. Calls with more than 2–3 participants need one; set a signaling server below, or hide this warning.',
  });
}

/**
 * One line per configured signaling server saying whether it answers: Parley asks the server's
 * welcome endpoint (GET signaling/welcome/{index}, a server-side check, so the browser needs no
 * route to the signaling server).
 */
function signalingStatus(): HTMLElement | null {
  let servers: Array<{ server?: unknown }> = [];
  try {
    const parsed = JSON.parse(state.values.signaling_servers?.value || '{}');
    servers = Array.isArray(parsed?.servers) ? parsed.servers : [];
  } catch {
    return null;
  }
  if (servers.length === 0) return null;
  const list = h('ul', { class: 'signaling-status', 'aria-label': 'Signaling server status' });
  servers.forEach((entry, index) => {
    const item = h('li', { 'data-state': 'checking', text: `${String(entry.server)}: checking…` });
    list.append(item);
    void checkSignalingServer(index, String(entry.server), item);
  });
  return list;
}

async function checkSignalingServer(index: number, server: string, item: HTMLElement): Promise<void> {
  let text: string;
  let ok = false;
  try {
    const res = await fetch(`/ocs/v2.php/apps/spreed/api/v3/signaling/welcome/${index}?format=json`, {
      credentials: 'same-origin',
      headers: { 'OCS-APIRequest': 'true', Accept: 'application/json' },
    });
    const data = (await res.json())?.ocs?.data ?? {};
    ok = res.ok;
    text = ok ? `answers (version ${String(data.version)})` : `does not answer (${String(data.error ?? res.status)})`;
  } catch {
    text = 'could not be checked';
  }
  item.dataset.state = ok ? 'ok' : 'down';
  item.className = ok ? 'server-ok' : 'server-down';
  item.textContent = `${server}: ${text}`;
}

/**
 * The setup checks (docs/operators.md "parley doctor"), as Nextcloud's admin overview: Parley
 * runs them server-side (GET /settings/ajax/checksetup) and the page lists each finding with
 * its fix.
 */
function setupChecksSection(): HTMLElement {
  const id = 'section-setup-checks';
  const list = h('ul', { class: 'setup-checks', 'aria-label': 'Setup checks', 'data-state': 'checking' }, h('li', { text: 'Checking…' }));
  void fillSetupChecks(list);
  return h('section', { id, 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title`, text: 'Setup checks' }), list);
}

async function fillSetupChecks(list: HTMLElement): Promise<void> {
  let checks: Array<{ id: string; title: string; status: string; message: string; fix?: string }>;
  try {
    const res = await fetch('/settings/ajax/checksetup', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error(`answered ${res.status}`);
    checks = ((await res.json()) as { checks: typeof checks }).checks;
  } catch (e) {
    list.replaceChildren(h('li', { 'data-status': 'error', text: `The checks could not be run: ${e instanceof Error ? e.message : String(e)}` }));
    list.dataset.state = 'done';
    return;
  }
  list.replaceChildren(
    ...checks.map((c) => {
      const item = h('li', { 'data-check': c.id, 'data-status': c.status }, h('strong', { text: `${c.title}: ` }), c.message);
      if (c.fix && c.status !== 'ok') item.append(h('p', { class: 'fix', text: c.fix }));
      return item;
    }),
  );
  list.dataset.state = 'done';
}

function render(): void {
  const app = document.getElementById('app')!;
  const nav = document.getElementById('sections')!;
  app.textContent = '';
  app.append(setupChecksSection());
  nav.append(h('a', { href: '#section-setup-checks', text: 'Setup checks' }));
  for (const section of CONFIG_SECTIONS) {
    if (section === INTERNAL_SECTION) continue;
    const keys = CONFIG_KEYS.filter((d) => d.section === section && !d.prefix && state.values[d.key] !== undefined);
    if (keys.length === 0) continue;
    const id = `section-${slug(section)}`;
    const el = h('section', { id, 'aria-labelledby': `${id}-title` });
    const wip = keys.every((d) => d.wip);
    const title = h('h2', { id: `${id}-title`, text: section });
    if (wip) title.append(' ', h('span', { class: 'badge', text: 'work in progress' }));
    el.append(title);
    nav.append(h('a', { href: `#${id}`, text: section }));
    if (section === keys.find((d) => d.key === 'hide_signaling_warning')?.section) {
      const warning = signalingWarning();
      if (warning) el.append(warning);
      const status = signalingStatus();
      if (status) el.append(status);
    }
    const controls: Control[] = [];
    const main = keys.filter((d) => d.ui);
    const more = keys.filter((d) => !d.ui);
    for (const def of main) {
      const c = buildControl(def, state.values[def.key], state.groups);
      controls.push(c);
      el.append(c.root);
    }
    if (more.length) {
      const details = h('details', { open: main.length === 0 }, h('summary', { text: main.length ? 'More settings' : 'Settings' }));
      for (const def of more) {
        const c = buildControl(def, state.values[def.key], state.groups);
        controls.push(c);
        details.append(c.root);
      }
      el.append(details);
    }
    if (state.groupsTruncated && keys.some((d) => d.type === 'groups')) {
      el.append(h('p', { class: 'desc', text: 'Only the first 500 groups are listed; use `parley config:app:set` for others.' }));
    }
    const status = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' });
    const save = h('button', { type: 'button', class: 'save', text: 'Save' });
    save.addEventListener('click', () => {
      save.disabled = true;
      // A failure nobody catches would leave "Saving…" on screen: say what went wrong instead.
      saveSection(controls, status)
        .catch((e: unknown) => {
          status.textContent = `Saving failed: ${e instanceof Error ? e.message : String(e)}`;
        })
        .finally(() => {
          save.disabled = false;
        });
    });
    el.append(h('div', { class: 'actions' }, save, status));
    // The list is kept through its own API, not as an app-config key: it has its own buttons.
    if (section === CONFIG_KEYS.find((d) => d.key === 'federation_only_trusted_servers')?.section) el.append(trustedServersBlock());
    app.append(el);
  }
}

render();
