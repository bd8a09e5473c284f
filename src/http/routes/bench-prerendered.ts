/**
 * Benchmark baselines that send pre-rendered bodies: `GET /bench/prerendered/<name>` answers the
 * file `<DATA_DIR>/bench-prerendered/<name>.json` as it is. Registered only when that folder
 * exists at start-up (the benchmark harness creates it in its throw-away data directory), so a
 * normal installation has no such route. GET /room is measured against the same body sent this
 * way. A file may also be written while the server runs (the harness stores a route's own answer
 * as the baseline of that route): it is read on its first request.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.js';

export const PRERENDERED_DIR = 'bench-prerendered';

export async function benchPrerenderedRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const dir = path.join(services.settings.dataDir, PRERENDERED_DIR);
  if (!fs.existsSync(dir)) return;
  const bodies = new Map<string, Buffer>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    bodies.set(file.slice(0, -5), fs.readFileSync(path.join(dir, file)));
  }
  app.get<{ Params: { name: string } }>('/bench/prerendered/:name', async (req, reply) => {
    const { name } = req.params;
    let body = bodies.get(name);
    if (!body && /^[a-z0-9-]+$/.test(name) && fs.existsSync(path.join(dir, `${name}.json`))) {
      body = fs.readFileSync(path.join(dir, `${name}.json`));
      bodies.set(name, body);
    }
    if (!body) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
