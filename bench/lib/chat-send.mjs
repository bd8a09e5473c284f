/**
 * What the chat-send benches share (chat-send-floor.mjs, chat-send-ceiling.mjs): the `hello` and
 * `chat-send` routes seeded into a fresh database and served by the built server.
 */
import { startServer } from './server.mjs';
import { prepareRoutes, seedRoutes } from './routes.mjs';
import core from '../routes/00-core.mjs';
import chat from '../routes/30-chat.mjs';

const routes = [...core, ...chat].filter((r) => r.name === 'hello' || r.name === 'chat-send');

/**
 * Seeds the two routes over `env`, starts the built server and calls `measure` with it, the two
 * requests and the chat-send route's seeded state ({ user, password, sendToken }); stops the
 * server afterwards and answers what `measure` answered.
 */
export async function withChatSendServer(env, dataDir, measure) {
  const seeded = await seedRoutes(env, routes, false);
  const server = await startServer(env);
  try {
    const prepared = await prepareRoutes(server.url, dataDir, routes, seeded);
    const byName = Object.fromEntries(prepared.map((p) => [p.r.name, p]));
    const send = byName['chat-send'];
    return await measure({ server, hello: byName.hello.req, send: send.req, state: seeded.get(send.r.seed) });
  } finally {
    await server.stop();
  }
}
