/**
 * The OpenAPI 3.1 document (GET /openapi.json, issue 7 item 5), generated from the route
 * definitions every `ocsRoute` call records: method, path, auth, `params` (TypeBox, i.e. JSON
 * Schema) and `response` (the schema of the OCS `data` payload). Every route answers under
 * /ocs/v2.php and, unless v2Only, under /ocs/v1.php with v1 envelope rules; the document lists
 * the v2 paths.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { SERVER_VERSION_FULL } from '../domain/version.js';
import type { OcsRouteDef } from './ocs/route.js';

type Json = Record<string, unknown>;

/** TypeBox schemas carry symbol keys; a JSON round trip keeps only the JSON Schema. */
const plain = (schema: TSchema | undefined): Json | undefined => (schema ? (JSON.parse(JSON.stringify(schema)) as Json) : undefined);

const META = {
  type: 'object',
  required: ['status', 'statuscode', 'message'],
  properties: { status: { type: 'string', enum: ['ok', 'failure'] }, statuscode: { type: 'integer' }, message: { type: 'string' } },
};

function envelope(data: Json): Json {
  return { type: 'object', required: ['ocs'], properties: { ocs: { type: 'object', required: ['meta', 'data'], properties: { meta: META, data } } } };
}

const ERROR_DATA = {
  oneOf: [
    { type: 'object', properties: { error: { type: 'string', description: 'machine reason' }, message: { type: 'string' } } },
    { type: 'array', maxItems: 0 },
  ],
};

function operation(def: OcsRouteDef<any>): Json {
  const pathNames = [...def.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const params = plain(def.params as TObject | undefined) as { properties?: Record<string, Json>; required?: string[] } | undefined;
  const props = params?.properties ?? {};
  const required = new Set(params?.required ?? []);
  const inBody = def.method === 'POST' || def.method === 'PUT';
  const parameters: Json[] = [];
  const bodyProps: Record<string, Json> = {};
  for (const name of pathNames) parameters.push({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string' } });
  for (const [name, schema] of Object.entries(props)) {
    if (pathNames.includes(name)) continue;
    if (inBody) bodyProps[name] = schema;
    else parameters.push({ name, in: 'query', required: required.has(name), schema });
  }
  parameters.push({ name: 'OCS-APIRequest', in: 'header', required: def.csrf !== false, schema: { type: 'string', enum: ['true'] } });
  const op: Json = {
    operationId: `${def.method.toLowerCase()}${def.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: def.summary ?? '',
    tags: [/^\/apps\/([^/]+)/.exec(def.path)?.[1] ?? def.path.split('/')[1] ?? 'core'],
    parameters,
    responses: {
      '200': { description: 'OCS success (the `data` member is described here)', content: { 'application/json': { schema: envelope(plain(def.response) ?? {}) } } },
      default: { description: 'OCS failure: the HTTP status (v2) and `data.error`', content: { 'application/json': { schema: envelope(ERROR_DATA) } } },
    },
    'x-parley-auth': def.auth,
  };
  if (def.auth !== 'public') op.security = [{ basic: [] }, { loginSession: [] }];
  if (inBody && Object.keys(bodyProps).length) {
    const schema = { type: 'object', properties: bodyProps, required: [...required].filter((r) => r in bodyProps) };
    op.requestBody = { content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } } };
  }
  return op;
}

export function buildOpenApi(defs: readonly OcsRouteDef<any>[], baseUrl: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const def of defs) {
    const p = '/ocs/v2.php' + def.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    (paths[p] ??= {})[def.method.toLowerCase()] = operation(def);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley (Nextcloud Talk OCS API)',
      version: SERVER_VERSION_FULL,
      description: 'Every path also answers under /ocs/v1.php with the v1 envelope. Add `format=json` or `Accept: application/json` for JSON; XML is the default.',
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'login password or app password' },
        loginSession: { type: 'apiKey', in: 'cookie', name: 'parley_login', description: 'session of Parley\'s login form (web pages)' },
      },
    },
    paths,
  };
}
