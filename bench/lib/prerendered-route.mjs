/**
 * Benchmark baselines that send pre-rendered bodies: `GET /bench/prerendered/<name>` answers the
 * file `<dataDir>/bench-prerendered/<name>.json` as it is. It is added to the real server only by
 * the bench harness (bench/lib/serve-with-baseline.mjs), so a normal installation has no such
 * route. GET /room is measured against the same body sent this way, by the same process. A file may
 * also be written while the server runs (the harness stores a route's own answer as the baseline of
 * that route): it is read on its first request.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

export const PRERENDERED_DIR = 'bench-prerendered';

/** Registers the baseline route on `app` (a Fastify instance before it listens). */
export function registerPrerendered(app, dataDir) {
  const dir = path.join(dataDir, PRERENDERED_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const bodies = new Map();
  app.get('/bench/prerendered/:name', async (req, reply) => {
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

/**
 * `POST /bench/gc`: a full garbage collection in the server, so a bench can tell what its
 * requests keep alive from the garbage a burst of them left for V8's next major collection
 * (bench/chat-longpoll.mjs). Bench harness only, like the route above.
 */
export function registerGc(app) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  app.post('/bench/gc', async (_req, reply) => {
    gc();
    return reply.code(204).send();
  });
}
