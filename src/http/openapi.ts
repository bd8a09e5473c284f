/**
 * The OpenAPI 3.1 document (GET /openapi.json, docs/operators.md "API document"), generated from
 * the route definitions every `ocsRoute` call records: method, path, auth, `params` (TypeBox, i.e.
 * JSON Schema) and `response` (the schema of the OCS `data` payload). Every route answers under
 * /ocs/v2.php and, unless v2Only, under /ocs/v1.php with v1 envelope rules; the document lists the
 * v2 paths.
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

/** The body Nextcloud answers a request without the OCS-APIRequest header with (not an envelope). */
const CSRF_BODY = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };

type StatusDoc = { description: string; schema?: Json };

/**
 * Every status the route can answer (contract "Errors" 1: each endpoint lists its statuses):
 * the ones its definition makes possible, plus the ones it declares (`statuses`).
 */
function statusesOf(def: OcsRouteDef<any>, pathNames: string[], hasParams: boolean): Record<string, StatusDoc> {
  const out: Record<string, StatusDoc> = { '200': { description: 'success' } };
  if (hasParams) out['400'] = { description: 'invalid input (data.error names the field or the rule broken)' };
  out['401'] = { description: def.auth === 'public' ? 'wrong credentials, or a guest where only users may' : 'not logged in or wrong credentials (OCS 997)' };
  if (def.auth === 'admin') out['403'] = { description: 'the account is not an admin' };
  if (def.talk) out['403'] = { description: 'not allowed (allowed_groups, or the role the operation needs)' };
  if (pathNames.length) out['404'] = { description: 'not found for the caller (indistinguishable from missing)' };
  if (def.capability)
    out['404'] = { description: `${out['404']?.description ?? 'not found'}; the route does not exist while capability ${def.capability} is not advertised` };
  // A conversation kept here for a host elsewhere (docs/federation.md#the-proxied-conversation).
  if (pathNames.includes('token') && def.talk && def.federation === undefined)
    out['406'] = { description: 'not supported in a federated conversation (one kept here for a host elsewhere)' };
  if (def.federation === 'forwarded')
    out['422'] = { description: "a federated conversation's host could not be reached (its own refusals pass on with their status)" };
  if (def.csrf !== false) out['412'] = { description: 'CSRF check failed: the OCS-APIRequest header is missing', schema: CSRF_BODY };
  out['429'] = { description: 'too many failed attempts from this address (brute-force throttle)' };
  out['503'] = { description: 'the server is overloaded and sheds load: retry after the Retry-After header (seconds)' };
  for (const [status, doc] of Object.entries(def.statuses ?? {})) {
    out[status] = typeof doc === 'string' ? { description: doc } : { description: doc.description, schema: plain(doc.schema) };
  }
  return out;
}

function responseOf(def: OcsRouteDef<any>, status: string, doc: StatusDoc): Json {
  const ok = Number(status) < 300;
  if (ok && def.rawContent) {
    const content = Object.fromEntries(def.rawContent.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]));
    return { description: `${doc.description} (the raw image, not an OCS envelope)`, content };
  }
  if (Number(status) === 304) return { description: doc.description };
  const data = doc.schema && status !== '412' ? doc.schema : ok ? (plain(def.response) ?? {}) : ERROR_DATA;
  const schema = status === '412' ? { anyOf: [doc.schema ?? CSRF_BODY, envelope(ERROR_DATA)] } : envelope(data);
  return { description: doc.description, content: { 'application/json': { schema } } };
}

/** Fields a client may leave out: optional ones and those with a default. */
function requiredFields(props: Record<string, Json>, required: Set<string>): Set<string> {
  return new Set([...required].filter((name) => props[name] && props[name].default === undefined));
}

function operation(def: OcsRouteDef<any>): Json {
  const pathNames = [...def.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const params = plain(def.params as TObject | undefined) as { properties?: Record<string, Json>; required?: string[] } | undefined;
  const props = params?.properties ?? {};
  const required = requiredFields(props, new Set(params?.required ?? []));
  const inBody = def.method === 'POST' || def.method === 'PUT' || def.method === 'DELETE';
  const parameters: Json[] = [];
  const bodyProps: Record<string, Json> = {};
  for (const name of pathNames) parameters.push({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string' } });
  for (const [name, schema] of Object.entries(props)) {
    if (pathNames.includes(name)) continue;
    if (inBody) bodyProps[name] = schema;
    else parameters.push({ name, in: 'query', required: required.has(name), schema });
  }
  parameters.push({ name: 'OCS-APIRequest', in: 'header', required: def.csrf !== false, schema: { type: 'string', enum: ['true'] } });
  const statuses = statusesOf(def, pathNames, Object.keys(props).length > 0);
  const op: Json = {
    operationId: `${def.method.toLowerCase()}${def.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: def.summary ?? '',
    tags: [/^\/apps\/([^/]+)/.exec(def.path)?.[1] ?? def.path.split('/')[1] ?? 'core'],
    parameters,
    responses: Object.fromEntries(Object.entries(statuses).map(([status, doc]) => [status, responseOf(def, status, doc)])),
    'x-parley-auth': def.auth,
  };
  if (def.capability) op['x-parley-capability'] = def.capability;
  if (def.auth !== 'public') op.security = [{ basic: [] }, { loginSession: [] }];
  if (inBody && Object.keys(bodyProps).length) {
    // Talk reads the same fields from a query string, a form or a JSON body (DELETE included).
    const schema = { type: 'object', properties: bodyProps, required: [...required].filter((r) => r in bodyProps) };
    op.requestBody = {
      required: schema.required.length > 0,
      content: {
        'application/json': { schema },
        'application/x-www-form-urlencoded': { schema },
        ...('file' in bodyProps ? { 'multipart/form-data': { schema } } : {}),
      },
    };
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
      description:
        'Every path also answers under /ocs/v1.php with the v1 envelope. Add `format=json` or `Accept: application/json` for JSON; XML is the default.',
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'login password or app password' },
        loginSession: { type: 'apiKey', in: 'cookie', name: 'parley_login', description: "session of Parley's login form (web pages)" },
      },
    },
    paths,
  };
}
