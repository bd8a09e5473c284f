/**
 * Whether the configured push proxies answer (for an operator's health check, such as a doctor
 * command): one GET of each proxy's base URL with a short timeout. Any HTTP answer counts as
 * reachable (the proxy has no status endpoint; what matters is that a connection and TLS work).
 */
export interface ProxyReachability {
  proxy: string;
  reachable: boolean;
  /** The HTTP status of the answer, when there was one. */
  status?: number;
  /** Why it was not reachable (connection refused, timeout, certificate, ...). */
  error?: string;
  ms: number;
}

export async function checkPushProxies(proxies: readonly string[], timeoutMs = 5000): Promise<ProxyReachability[]> {
  return Promise.all(
    proxies.map(async (proxy) => {
      const started = Date.now();
      try {
        const res = await fetch(`${proxy}/`, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
        await res.body?.cancel();
        return { proxy, reachable: true, status: res.status, ms: Date.now() - started };
      } catch (err) {
        const e = err as Error & { cause?: { code?: string; message?: string } };
        return { proxy, reachable: false, error: e.cause?.code ?? e.cause?.message ?? e.message, ms: Date.now() - started };
      }
    }),
  );
}
