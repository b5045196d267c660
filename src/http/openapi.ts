import type { SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { EVENTS, type DomainEvent } from '../outbox/emit.ts';
import type { RouteScope } from './context.ts';
import { SESSION_ONLY_SCOPES } from './auth.ts';

// E16: the OpenAPI document tells all, from one place. Every route registered
// after describeApi() gets, in its schema, an operationId derived from its
// method and URL (or its own `schema.operationId`), a tag and its scope (in the
// description and as `x-scopes`). The document itself is then completed once
// (transformObject): the 4xx responses each route can give, all sharing the
// `Error` schema; the shared schemas (resources, bodies, pagination) as
// components; the webhook deliveries under `webhooks`. Error responses are
// added to the document only, never to route.schema.response: that would make
// Fastify serialize error bodies through a schema.

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the completion step needs to know about one operation. */
interface OperationInfo {
  /** Singular resource name from the URL: `ContactProperty` for /contacts/:id/properties. */
  resource: string;
  statuses: number[];
}

const pascal = (words: string[]) => words.flatMap((w) => w.split(/[-_]/)).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
const camel = (words: string[]) => {
  const p = pascal(words);
  return p.charAt(0).toLowerCase() + p.slice(1);
};
const singular = (w: string) => (w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
const isParam = (segment: string) => segment.startsWith(':') || segment.includes('*');

/** Services that throw conflict() (409): not derivable from a route's shape. */
// Operations whose service answers 409 (E3/E4 payments and locks included).
const CONFLICTS = new Set(['deleteContact', 'createContactProperty', 'updateContactProperty', 'createInvoicePayment', 'deleteInvoicePayment', 'updateInvoice', 'deleteInvoice', 'updateInvoiceStatus']);

/**
 * `listContacts`, `getContact`, `createContact`, `updateContact`, `deleteContact`,
 * `listContactProperties`, `updateQuoteStatus`, `getWorkspace`: the verb from the
 * method, the nouns from the static segments (singular when an id follows).
 */
export function deriveOperation(method: string, url: string): { operationId: string; resource: string } {
  const segments = url.replace(/^\/api(\/v1)?(?=\/)/, '').split('/').filter(Boolean);
  const onItem = segments.length > 0 && isParam(segments[segments.length - 1]);
  const statics = segments.filter((s, i) => !isParam(s) && i < segments.length);
  const words = segments.flatMap((s, i) => (isParam(s) ? [] : [isParam(segments[i + 1] ?? '') ? singular(s) : s]));
  const last = statics[statics.length - 1] ?? 'root';
  const isCollection = !onItem && singular(last) !== last;
  const nouns = words.slice(0, -1);
  const lastWord = words[words.length - 1] ?? 'root';
  const resource = pascal([...nouns, singular(lastWord)]);
  let verb: string;
  let tail = lastWord;
  switch (method) {
    case 'GET':
      verb = onItem || !isCollection ? 'get' : 'list';
      break;
    case 'POST':
      verb = 'create';
      tail = singular(lastWord);
      break;
    case 'DELETE':
      verb = 'delete';
      break;
    default:
      verb = 'update';
  }
  return { operationId: camel([verb, ...nouns, tail]), resource };
}

const RESPONSES: Record<number, [name: string, description: string]> = {
  400: ['BadRequest', 'Invalid request: malformed JSON, or a query or body that fails validation (`details` names each field; D4)'],
  401: ['Unauthorized', 'Missing, malformed or revoked API key'],
  403: ['Forbidden', "The key's scopes do not allow this operation"],
  404: ['NotFound', "No such resource in the key's workspace (another workspace's id included)"],
  409: ['Conflict', 'The change conflicts with existing records'],
  415: ['UnsupportedMediaType', 'The body is not JSON'],
  422: ['UnprocessableEntity', 'Validation failed (`details` names each field; D4)'],
  429: ['TooManyRequests', 'Rate limit exceeded; `Retry-After` gives the seconds to wait'],
  500: ['InternalServerError', 'An unexpected failure; nothing was committed, and the answer is in the same envelope'],
};

/** The statuses a route can answer besides its own, from its shape and config. */
function errorStatuses(route: RouteOptions, operationId: string): number[] {
  const config = (route.config ?? {}) as { scope?: RouteScope; public?: boolean; validation?: string; errors?: readonly number[] };
  const schema = (route.schema ?? {}) as Json;
  const statuses = new Set<number>();
  const keyed = config.scope !== undefined && !config.public; // behind src/http/authenticated.ts
  if (keyed) for (const s of [401, 403, 429]) statuses.add(s);
  else if (Array.isArray(schema.security) && schema.security.length > 0) statuses.add(401);
  if (schema.body || schema.querystring) statuses.add(400);
  if (schema.body && config.validation === 'contacts') statuses.add(422); // D4
  if (route.url.split('/').some(isParam) || config.scope === null) statuses.add(404);
  if (CONFLICTS.has(operationId)) statuses.add(409);
  for (const s of config.errors ?? []) statuses.add(s);
  statuses.add(500); // F129: any operation can fail, in the same envelope
  return [...statuses].sort((a, b) => a - b);
}

const listed = (scopes: readonly string[]) => scopes.map((s) => `\`${s}\``).join(', ');

function scopeLine(scope: RouteScope | undefined, access: 'read' | 'write', parentScopes: readonly string[] | undefined): string | null {
  if (scope === undefined) return null;
  if (Array.isArray(scope)) return `Scope: one of ${listed(scope)} (or \`read\`).`;
  if (scope === null) {
    const which = parentScopes ? `: one of ${listed(parentScopes)} (or \`${access}\`)` : '';
    return `Scope: the parent's module decides, \`<module>:${access}\` of the record's parent${which}, checked per parent.`;
  }
  // A1, A5: no key can hold these; the sessions of owners and admins do.
  if (typeof scope === 'string' && (SESSION_ONLY_SCOPES as readonly string[]).includes(scope)) return `Scope: \`${scope}\`: signed-in owners and admins only (session cookie); an API key gets 403.`;
  return `Scope: \`${scope}\`.`;
}

const tagOf = (url: string) => {
  const first = url.replace(/^\/api(\/v1)?(?=\/)/, '').split('/').find((s) => s && !isParam(s)) ?? 'root';
  const name = singular(first).replace(/-/g, ' ');
  return name.charAt(0).toUpperCase() + name.slice(1);
};

/**
 * Adds the route hook and returns the @fastify/swagger options that complete
 * the document; spread them into the swagger registration.
 */
export function describeApi(app: FastifyInstance): { transformObject: SwaggerTransformObject } {
  const operations = new Map<string, OperationInfo>();
  const taken = new Map<string, string>();
  app.addHook('onRoute', (route) => {
    if (route.method === 'HEAD' || (Array.isArray(route.method) && route.method.includes('HEAD'))) return;
    const schema = (route.schema ?? {}) as Json;
    if (schema.hide) return;
    // OpenAPI has no wildcard path parameter: the /files/* download URLs (handed
    // out in `url` fields, D20) stay out of the document.
    if (route.url.includes('*')) {
      route.schema = { ...schema, hide: true };
      return;
    }
    const method = [route.method].flat()[0];
    const derived = deriveOperation(method, route.url);
    const operationId = typeof schema.operationId === 'string' ? schema.operationId : derived.operationId;
    const other = taken.get(operationId);
    if (other) throw new Error(`${method} ${route.url}: operationId ${operationId} is already ${other}'s; give it schema.operationId`);
    taken.set(operationId, `${method} ${route.url}`);
    const config = (route.config ?? {}) as { scope?: RouteScope; parentScopes?: readonly string[] };
    const access = method === 'GET' ? 'read' : 'write';
    // A scope the service checks per parent (uploads, comments): every one it may ask for.
    const scopes = config.scope === null ? config.parentScopes?.map((prefix) => `${prefix}:${access}`) : typeof config.scope === 'string' ? [config.scope] : config.scope;
    // A route that needs no scope at all says so itself (GET /me: any key or session).
    const line = typeof schema.description === 'string' && schema.description.includes('Scope: none') ? null : scopeLine(config.scope, access, config.scope === null ? scopes : undefined);
    // E16: every operation names its scopes; a route outside the key's header check (the
    // embedded form's key travels in the body) declares its own, and needing none is `[]` (F240).
    const xScopes: Json = { 'x-scopes': Array.isArray(schema['x-scopes']) ? schema['x-scopes'] : scopes ? [...scopes] : [] };
    const summary = typeof schema.summary === 'string' ? schema.summary.replace(/^(Create|Get|Update|Delete) a (?=[aeio])/, '$1 an ') : undefined;
    route.schema = {
      ...schema,
      operationId,
      ...(summary ? { summary } : {}),
      tags: Array.isArray(schema.tags) && schema.tags.length ? schema.tags : [tagOf(route.url)],
      ...(line ? { description: [schema.description, line].filter(Boolean).join('\n\n') } : {}),
      ...xScopes,
    };
    operations.set(operationId, { resource: derived.resource, statuses: errorStatuses(route, operationId) });
  });
  return {
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const completed: Json = completeDocument({ ...document.openapiObject }, operations);
      return completed;
    },
  };
}

const ErrorSchema = {
  type: 'object',
  description: 'The SPEC error envelope, for every 4xx and 5xx answer.',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', const: false },
    error: { type: 'string', description: 'A human-readable message, e.g. `Contact not found`' },
    details: {
      type: 'array',
      description: 'One entry per invalid field, when validation failed',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'array', items: { type: ['string', 'integer'] } }, message: { type: 'string' } },
      },
    },
  },
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The per-key limiter's headers (src/http/authenticated.ts), declared once and referenced by every answer it counts. */
const RATE_LIMIT_HEADERS: Json = {
  XRateLimitLimit: { description: 'Requests allowed per window for this API key (API_RATE_LIMIT)', schema: { type: 'integer' } },
  XRateLimitRemaining: { description: 'Requests left in the current window', schema: { type: 'integer' } },
  XRateLimitReset: { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};
const rateLimitHeaders = (): Json => ({
  'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
});
/** Paths behind the per-key rate limit: every answer there carries its headers (but a 401, given before the key is known). */
const RATE_LIMITED = /^\/api\/(v1|webhooks)(\/|$)/;

function completeDocument(doc: Json, operations: Map<string, OperationInfo>): Json {
  const components = (isObj(doc.components) ? doc.components : {}) as Json & { schemas?: Json };
  const schemas: Json = { ...(components.schemas ?? {}), Error: ErrorSchema };
  const byShape = new Map<string, string>();
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  /** A named component for `schema`, shared with every identical one. */
  const hoist = (schema: unknown, name: string): unknown => {
    if (!isObj(schema) || schema.type !== 'object' || !isObj(schema.properties)) return schema;
    const shape = JSON.stringify(schema);
    const known = byShape.get(shape);
    if (known) return ref(known);
    let unique = name;
    for (let n = 2; unique in schemas; n++) unique = `${name}${n}`;
    schemas[unique] = schema;
    byShape.set(shape, unique);
    return ref(unique);
  };

  const paths = (isObj(doc.paths) ? doc.paths : {}) as Record<string, Json>;
  const ops: [Json, OperationInfo & { operationId: string }][] = [];
  const limited = new Set<Json>();
  for (const [path, item] of Object.entries(paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!isObj(op) || typeof op.operationId !== 'string') continue;
      const info = operations.get(op.operationId);
      if (info) ops.push([op, { ...info, operationId: op.operationId }]);
      if (RATE_LIMITED.test(path)) limited.add(op);
    }
  }
  // Single GETs first: they name the resources (`Contact`), which lists and writes then share.
  const rank = (id: string) => (id.startsWith('get') ? 0 : id.startsWith('list') ? 1 : 2);
  ops.sort((a, b) => rank(a[1].operationId) - rank(b[1].operationId));

  const dataRefs = new Map<string, unknown>();
  for (const [op, info] of ops) {
    const Id = pascal([info.operationId]);
    const body = jsonSchemaAt(op.requestBody);
    if (body) body.holder.schema = hoist(body.schema, `${Id}Body`);
    const responses = isObj(op.responses) ? op.responses : {};
    for (const [status, response] of Object.entries(responses)) {
      if (isObj(response) && response.description === 'Default Response') response.description = status === '201' ? 'Created' : 'OK';
      if (isObj(response) && limited.has(op) && !('$ref' in response)) response.headers = { ...rateLimitHeaders(), ...(isObj(response.headers) ? response.headers : {}) };
      // E19: a write's answer may name the body fields it ignored.
      if (body && isObj(response) && status.startsWith('2')) response.headers = { ...(isObj(response.headers) ? response.headers : {}), 'Fieldwork-Ignored-Fields': { $ref: '#/components/headers/IgnoredFields' } };
      const found = jsonSchemaAt(response);
      if (!found || !status.startsWith('2')) continue;
      const props = isObj(found.schema.properties) ? found.schema.properties : null;
      if (!props) continue;
      if (props.pagination) props.pagination = hoist(props.pagination, 'Pagination');
      const data = props.data;
      if (isObj(data) && data.type === 'array') data.items = hoist(data.items, `${info.resource}ListItem`);
      else if (isObj(data)) props.data = hoist(data, info.operationId.startsWith('get') ? info.resource : info.operationId.startsWith('delete') ? 'Deleted' : `${Id}Result`);
      if (status.startsWith('2') && !dataRefs.has(info.operationId)) dataRefs.set(info.operationId, props.data);
    }
    for (const status of info.statuses) responses[String(status)] ??= { $ref: `#/components/responses/${RESPONSES[status][0]}` };
    op.responses = responses;
  }

  const responses: Json = {};
  for (const [status, [name, description]] of Object.entries(RESPONSES)) {
    // Shared by the rate-limited paths and the few outside them (the embedded form, the internal key), which send no X-RateLimit-* headers.
    responses[name] = {
      description,
      headers: { ...(status === '429' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}), ...rateLimitHeaders() },
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  const webhooks = webhookDocs(schemas, dataRefs, ref);
  // Each tag described by the scopes its operations need.
  const tagScopes = new Map<string, Set<string>>();
  for (const [op] of ops) {
    for (const tag of Array.isArray(op.tags) ? op.tags.map(String) : []) {
      const scopes = tagScopes.get(tag) ?? new Set<string>();
      for (const scope of Array.isArray(op['x-scopes']) ? op['x-scopes'].map(String) : []) scopes.add(scope);
      tagScopes.set(tag, scopes);
    }
  }
  const tags = [...tagScopes].sort(([a], [b]) => a.localeCompare(b)).map(([name, scopes]) => ({
    name,
    description: scopes.size ? `Scopes: ${[...scopes].sort().map((x) => `\`${x}\``).join(', ')}.` : "Scopes: the parent resource's, or the route's own key (see each operation).",
  }));
  return {
    ...doc,
    tags: [...tags, { name: 'Webhook event', description: 'Deliveries POSTed to subscribed URLs (docs/webhooks.md)' }],
    components: { ...components, schemas, responses, parameters: WEBHOOK_HEADERS, headers: { ...RATE_LIMIT_HEADERS, IgnoredFields: IGNORED_FIELDS_HEADER } },
    webhooks,
  };
}

/** The JSON schema of a request body or response, and the object holding it. */
function jsonSchemaAt(holder: unknown): { holder: Json; schema: Json } | null {
  if (!isObj(holder) || !isObj(holder.content)) return null;
  const json = holder.content['application/json'];
  if (!isObj(json) || !isObj(json.schema)) return null;
  return { holder: json, schema: json.schema };
}

/** E19: present only when the body had fields the operation does not take. */
const IGNORED_FIELDS_HEADER: Json = {
  description: 'The body fields this write ignored (unknown or read-only), as comma-separated dotted paths, e.g. `emial, address.zip_cod`; absent when none was',
  schema: { type: 'string' },
};

const WEBHOOK_HEADERS: Json = {
  FieldworkSignature: {
    name: 'Fieldwork-Signature',
    in: 'header',
    required: true,
    description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the subscription secret (E15); refuse one older than five minutes',
    schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
  },
  ServiceSignature: {
    name: 'X-Service-Signature',
    in: 'header',
    required: true,
    description: 'Hex HMAC-SHA256 of the raw body keyed with the subscription secret (D15; no replay protection)',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  ServiceEvent: { name: 'X-Service-Event', in: 'header', required: true, description: 'The event name', schema: { type: 'string' } },
  ServiceDelivery: { name: 'X-Service-Delivery', in: 'header', required: true, description: '`meta.webhook_id`: the same on every attempt', schema: { type: 'string', format: 'uuid' } },
  ServiceTimestamp: { name: 'X-Service-Timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was sent', schema: { type: 'string' } },
};

/** `data: {id}` of the E14 `*_deleted` events. */
const DELETED = 'DeletedData';

/** The single GET (or the write) whose `data` each event carries (emit() callers). */
const EVENT_DATA: Record<DomainEvent, string | null> = {
  new_request: null, // D33: a summary of its own (NewRequestData)
  request_updated: 'getRequest',
  new_contact: 'getContact',
  new_quote: 'getQuote',
  quote_accepted: 'getQuote',
  new_job: 'getJob',
  new_invoice: 'getInvoice',
  invoice_sent: 'getInvoice',
  invoice_paid: 'getInvoice',
  contact_updated: 'getContact',
  contact_deleted: DELETED,
  request_deleted: DELETED,
  quote_updated: 'getQuote',
  quote_deleted: DELETED,
  job_updated: 'getJob',
  job_deleted: DELETED,
  invoice_updated: 'getInvoice',
  invoice_deleted: DELETED,
  new_event: 'getEvent',
  event_updated: 'getEvent',
  event_deleted: DELETED,
  payment_received: 'createInvoicePayment',
};

const nullableString = { type: ['string', 'null'] };

function webhookDocs(schemas: Json, dataRefs: Map<string, unknown>, ref: (name: string) => Json): Json {
  schemas.WebhookMeta = {
    type: 'object',
    required: ['webhook_id', 'delivery_attempt', 'link'],
    properties: {
      webhook_id: { type: 'string', format: 'uuid', description: 'The same on every attempt of one delivery: ignore a copy already processed' },
      delivery_attempt: { type: 'integer', minimum: 1 },
      link: { type: 'string', format: 'uri', description: "The resource's URL in the API (D16)" },
    },
  };
  schemas.NewRequestData = {
    type: 'object',
    description: 'D33: the `data` of `new_request`',
    required: ['id', 'name', 'email', 'phone', 'service_type', 'message', 'status', 'created_at'],
    properties: {
      id: { type: 'integer' },
      name: nullableString,
      email: nullableString,
      phone: nullableString,
      service_type: nullableString,
      message: nullableString,
      status: { type: 'string' },
      created_at: { type: 'string' },
    },
  };
  schemas[DELETED] = {
    type: 'object',
    description: 'E14: the `data` of a `*_deleted` event: the id of the record deleted',
    required: ['id'],
    properties: { id: { type: 'integer' } },
  };
  const webhooks: Json = {};
  for (const event of EVENTS) {
    const name = `${pascal([event])}Event`;
    const source = EVENT_DATA[event];
    schemas[name] = {
      type: 'object',
      required: ['event', 'workspace_id', 'timestamp', 'data', 'meta'],
      properties: {
        event: { type: 'string', const: event },
        workspace_id: { type: 'integer' },
        timestamp: { type: 'string', format: 'date-time' },
        data: source === DELETED ? ref(DELETED) : source ? (dataRefs.get(source) ?? { type: 'object' }) : ref('NewRequestData'),
        meta: ref('WebhookMeta'),
      },
    };
    webhooks[event] = {
      post: {
        operationId: camel([event, 'webhook']),
        summary: `The \`${event}\` delivery`,
        description: 'POSTed to every URL subscribed to this event; retried 5 minutes, 30 minutes, 2 hours and 24 hours later until answered 2xx (docs/webhooks.md).',
        tags: ['Webhook event'],
        security: [],
        parameters: Object.keys(WEBHOOK_HEADERS).map((p) => ({ $ref: `#/components/parameters/${p}` })),
        requestBody: { required: true, content: { 'application/json': { schema: ref(name) } } },
        responses: {
          '200': { description: 'Received (any 2xx): answer within WEBHOOK_TIMEOUT, then do the work' },
          '400': { description: 'Any other answer (or none) is retried later; after the fifth failed attempt the delivery is marked failed' },
        },
      },
    };
  }
  return webhooks;
}
