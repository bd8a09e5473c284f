/**
 * GET /metrics (docs/operators.md "Metrics"): OpenMetrics for Prometheus. Open to loopback only, unless
 * METRICS_ALLOW lists more networks; anyone else gets 403 and the counters stay private.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { OPENMETRICS_CONTENT_TYPE } from '../../domain/openmetrics.js';
import type { Services } from '../../services/index.js';

/** The addresses that may scrape: loopback plus the configured networks. */
function metricsAllowList(extra: string[]): net.BlockList {
  const list = new net.BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  for (const cidr of extra) {
    const [address, prefix] = cidr.split('/');
    const type = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

function clientAllowed(list: net.BlockList, ip: string): boolean {
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (v4) return list.check(v4, 'ipv4');
  const family = net.isIP(ip);
  return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

export async function metricsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const allowed = metricsAllowList(services.settings.metricsAllow);
  app.get('/metrics', async (request, reply) => {
    if (!clientAllowed(allowed, request.ip)) {
      return reply.code(403).type('text/plain; charset=utf-8').send('Forbidden: /metrics is open to loopback and METRICS_ALLOW only\n');
    }
    const body = await services.metrics.render();
    return reply.type(OPENMETRICS_CONTENT_TYPE).header('Cache-Control', 'no-store').send(body);
  });
}
