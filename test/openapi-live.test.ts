/**
 * The API document tells the truth: every operation of GET /openapi.json is called live (as an
 * admin, as the owner of a conversation, anonymously, without the CSRF header, with a bad
 * value), and each answer's status must be one the document lists for that operation, with a
 * body that validates against the schema documented for that status (ajv). Also: 201 for
 * create, optional fields not required, form bodies documented, avatar GETs as images.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { admin, as, createUser, dialects, type Caller } from './helpers/parley.js';
import { createRoom, NO_THROTTLE } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

type Json = Record<string, any>;

/** A value of the schema's type (the first enum member, the minimum, ...). */
function sample(schema: Json | undefined): unknown {
  if (!schema) return 'x';
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return sample(schema.anyOf[0]);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'x';
  }
}

/** A value of the wrong type for the schema (for the 400 answers). */
function wrong(schema: Json | undefined): unknown {
  return schema?.type === 'string' ? { not: 'a string' } : 'not-a-number';
}

for (const dialect of dialects()) {
  describe(`the API document matches live answers [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let doc: Json;
    const ajv = new Ajv({ strict: false, allErrors: false });
    const validators = new Map<unknown, ReturnType<Ajv['compile']>>();
    const validate = (schema: Json, data: unknown) => {
      let v = validators.get(schema);
      if (!v) validators.set(schema, (v = ajv.compile(schema)));
      return v(data) ? null : ajv.errorsText(v.errors);
    };

    before(async () => {
      await createUser(t.p, 'alice', { groups: ['crew'] });
      await createUser(t.p, 'bob', { groups: ['crew'] });
      doc = await (await fetch(`${t.p.url}/openapi.json`)).json();
    });

    it('POST /room documents 201 and 200; optional fields are not required; form bodies are listed', () => {
      const create = doc.paths['/ocs/v2.php/apps/spreed/api/v4/room'].post;
      assert.ok(create.responses['201'] && create.responses['200']);
      const body = create.requestBody.content['application/json'].schema;
      assert.deepEqual(body.required, ['roomType']);
      assert.ok(body.properties.password && body.properties.lobbyTimer, 'create-time options documented');
      assert.ok(create.requestBody.content['application/x-www-form-urlencoded']);
      const avatar = doc.paths['/ocs/v2.php/apps/spreed/api/v1/room/{token}/avatar'].get.responses['200'].content;
      assert.deepEqual(Object.keys(avatar).sort(), ['image/jpeg', 'image/png', 'image/svg+xml']);
      assert.ok(doc.paths['/ocs/v2.php/apps/spreed/api/v4/room/{token}/participants/active'].post.responses['409']);
    });

    it('every operation, called live by several callers, answers a documented status with a documented body', async () => {
      const problems: string[] = [];
      let calls = 0;
      let n = 0;
      const shared = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Shared' });
      for (const [template, ops] of Object.entries(doc.paths as Record<string, Json>)) {
        for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
          n++;
          // Operations that may delete or change who is in a conversation get a fresh one;
          // operations on a user get a fresh user (some delete or disable it).
          const room = method === 'get' ? shared : await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: `Op ${n}` });
          const victim = `victim${n}`;
          if (template.includes('{userid}')) await createUser(t.p, victim);
          const values: Record<string, string> = {
            token: room.token,
            app: 'spreed',
            key: 'start_calls',
            userid: victim,
            groupid: 'crew',
            mode: 'default',
            pin: '1234567',
            attendeeId: String(room.attendeeId),
            action: 'enable',
          };
          const path = template.replace('/ocs/v2.php', '').replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => values[name] ?? 'x');
          const bodySchema: Json | undefined = op.requestBody?.content['application/json'].schema;
          const good: Json = {};
          const bad: Json = {};
          for (const name of bodySchema?.required ?? []) good[name] = sample(bodySchema!.properties[name]);
          const firstField = Object.keys(bodySchema?.properties ?? {})[0];
          if (firstField) bad[firstField] = wrong(bodySchema!.properties[firstField]);
          const query: Json = {};
          for (const prm of op.parameters ?? []) if (prm.in === 'query' && prm.required) query[prm.name] = sample(prm.schema);
          const attempts: Array<{ who: string; as?: Caller; body?: Json; ocs?: boolean }> = [
            { who: 'anonymous' },
            { who: 'no CSRF header', as: as('alice'), body: good, ocs: false },
            { who: 'bad value', as: as('alice'), body: bad },
            { who: 'owner', as: as('alice'), body: good },
            { who: 'admin', as: admin, body: good },
          ];
          const upper = method.toUpperCase();
          for (const a of attempts.filter((x) => x.who !== 'bad value' || firstField)) {
            const send = upper === 'GET' ? {} : { body: a.body ?? good };
            const r = await t.call(upper, path, { as: a.as, query, ocsHeader: a.ocs, format: 'json', ...send });
            calls++;
            const where = `${upper} ${template} as ${a.who}: ${r.status}`;
            const documented = op.responses[String(r.status)];
            if (!documented) {
              problems.push(`${where} is not documented (${r.text.slice(0, 120)})`);
              continue;
            }
            if (r.status === 304) continue;
            const type = (r.headers.get('content-type') ?? '').split(';')[0];
            const content = documented.content?.[type];
            if (!content) {
              problems.push(`${where}: content type ${type} not documented`);
              continue;
            }
            if (type !== 'application/json') continue;
            const error = validate(content.schema, r.body);
            if (error) problems.push(`${where}: body does not match the documented schema: ${error}`);
          }
        }
      }
      assert.ok(calls > 300, `calls: ${calls}`);
      assert.deepEqual(problems, []);
    });
  });
}
