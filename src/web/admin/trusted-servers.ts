/**
 * The trusted servers of federation on the admin page (docs/federation.md#trusted-servers-on-the-admin-page;
 * runs in the browser): the list, a field to add a server and a button per server to remove it,
 * each through the admin API `/ocs/v2.php/apps/federation/trusted-servers`. The server validates
 * (as the CLI does) and its refusal is shown under the field; the list is read again after every
 * change, so what is shown is what is stored.
 */
import { h } from './controls.js';
import { ocsRequest } from './ocs.js';

const API = '/ocs/v2.php/apps/federation/trusted-servers';

interface TrustedServer {
  id: number;
  url: string;
}

export function trustedServersBlock(): HTMLElement {
  const list = h('ul', { class: 'trusted-servers', 'aria-label': 'Trusted servers', 'data-state': 'loading' }, h('li', { text: 'Loading…' }));
  const input = h('input', {
    id: 'trusted-server-url',
    'aria-label': 'Server to trust',
    placeholder: 'cloud.example.org',
    maxlength: '255',
    autocomplete: 'off',
  });
  const add = h('button', { type: 'submit', class: 'add', text: 'Add server' });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const form = h('form', { class: 'row add-trusted-server' }, input, add);

  function showError(message: string): void {
    error.textContent = message;
    error.hidden = message === '';
  }

  async function refresh(): Promise<void> {
    const outcome = await ocsRequest('GET', API);
    list.dataset.state = 'done';
    if (!outcome.ok) {
      list.replaceChildren(h('li', { class: 'error', text: `The list could not be read: ${outcome.message}` }));
      return;
    }
    const servers = outcome.data as TrustedServer[];
    if (servers.length === 0) {
      list.replaceChildren(h('li', { class: 'desc empty', text: 'No trusted servers.' }));
      return;
    }
    list.replaceChildren(...servers.map((s) => serverItem(s)));
  }

  function serverItem(s: TrustedServer): HTMLElement {
    const remove = h('button', { type: 'button', class: 'remove', 'aria-label': `Remove ${s.url}`, text: '✕' });
    remove.addEventListener('click', () => {
      remove.disabled = true;
      void ocsRequest('DELETE', `${API}/${s.id}`).then(async (outcome) => {
        showError(outcome.ok ? '' : outcome.message);
        list.dataset.state = 'loading';
        await refresh();
      });
    });
    return h('li', { 'data-id': String(s.id) }, h('span', { class: 'server', text: s.url }), remove);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    add.disabled = true;
    void ocsRequest('POST', API, { url: input.value })
      .then(async (outcome) => {
        showError(outcome.ok ? '' : outcome.message);
        if (!outcome.ok) return;
        input.value = '';
        list.dataset.state = 'loading';
        await refresh();
      })
      .finally(() => {
        add.disabled = false;
      });
  });

  void refresh();
  return h(
    'div',
    { class: 'field trusted-servers-field', id: 'trusted-servers' },
    h('h3', { text: 'Trusted servers' }),
    h('p', {
      class: 'desc',
      text: 'While federation_only_trusted_servers is on, invitations go only to these servers and shares are taken only from them. Name a server as in a cloud id: host[:port][/path].',
    }),
    list,
    form,
    error,
  );
}
