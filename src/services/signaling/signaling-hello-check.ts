/**
 * The signaling server's side of the setup check's round trip (docs/operators.md "parley
 * doctor"): a WebSocket to `<server>/spreed` and a hello v1.0 as a guest with a ticket of
 * Parley's, naming Parley's backend URL. The server accepts the hello only after asking Parley's
 * backend API about the ticket, so a `hello` answer proves the server can reach Parley, knows
 * its address as a backend and shares its secret. A `welcome` message (newer servers send one
 * on connect) is skipped.
 */
import WebSocket from 'ws';

export type HelloOutcome = { ok: true; version?: string } | { ok: false; code: string; message: string };

/** `server` is a configured signaling URL (http(s) or ws(s)); `backendUrl` Parley's backend endpoint. */
export function signalingHello(server: string, backendUrl: string, ticket: string, timeoutMs = 5000): Promise<HelloOutcome> {
  const base = server.replace(/^http(s?):\/\//i, 'ws$1://').replace(/\/+$/, '');
  return new Promise((resolve) => {
    let done = false;
    const ws = new WebSocket(`${base}/spreed`, { handshakeTimeout: timeoutMs });
    const finish = (outcome: HelloOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, code: 'timeout', message: `no answer to the hello within ${timeoutMs / 1000} s` }), timeoutMs);
    ws.on('open', () => {
      ws.send(
        JSON.stringify({ id: 'parley-setup-check', type: 'hello', hello: { version: '1.0', auth: { url: backendUrl, params: { userid: null, ticket } } } }),
      );
    });
    ws.on('message', (data) => {
      let msg: { type?: string; error?: { code?: string; message?: string }; hello?: { server?: { version?: string } } };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return finish({ ok: false, code: 'malformed', message: 'the server sent something that is not JSON' });
      }
      if (msg.type === 'hello') return finish({ ok: true, version: msg.hello?.server?.version });
      if (msg.type === 'error') return finish({ ok: false, code: String(msg.error?.code ?? 'error'), message: String(msg.error?.message ?? '') });
    });
    ws.on('error', (err) => finish({ ok: false, code: 'connect', message: err.message }));
    ws.on('close', () => finish({ ok: false, code: 'closed', message: 'the server closed the connection' }));
  });
}
