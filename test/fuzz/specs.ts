import fc from 'fast-check';
import {
  hostileString,
  hostileValue,
  MiB,
  nested,
  rawHostileBody,
  validLabels,
  validMime,
  validProject,
  validSlug,
  validText,
} from './values.js';

/** One generated HTTP request, with what its answer must show. */
export interface FuzzRequest {
  /** The generator it came from: `METHOD /route/pattern` or `MCP <method>`. */
  spec: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Fields made invalid on purpose (valid auth): the answer must be a 400 whose `details` names each. */
  broken?: string[];
  /** MCP: the JSON-RPC expectations. */
  mcp?: {
    /** Tool arguments made invalid: the result must be `isError` and its text must name each. */
    brokenArgs?: string[];
    /** The JSON-RPC error code the answer must carry (e.g. -32602 for a missing required argument). */
    expectError?: number;
  };
}

/** Content that exists when the run starts, per surface (API key user and dashboard session user). */
export interface Fixtures {
  prompts: string[];
  /** Prompts the fuzzer may delete (the others stay, so that reads keep finding something). */
  disposablePrompts: string[];
  promptWithRequiredVariable: string;
  memories: string[];
  disposableMemories: string[];
  artifacts: Array<{ project: string; slug: string }>;
  disposableArtifacts: Array<{ project: string; slug: string }>;
}

export interface DashboardFixtures {
  disposableKeyIds: string[];
  otherUserIds: string[];
}

export interface Credentials {
  key: string;
  mcpKey: string;
  marketplaceKey: string;
  cookie: string;
  origin: string;
}

export interface Spec {
  key: string;
  arbitrary: fc.Arbitrary<FuzzRequest>;
  /** Relative share of the run. */
  weight?: number;
}

// -- helpers ----------------------------------------------------------------------------------------------

/** encodeURIComponent that also encodes lone surrogates (as the invalid UTF-8 a hostile client sends). */
export function enc(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd')).replaceAll('%EF%BF%BD', '%ED%A0%80');
  }
}

const json = (value: unknown) => JSON.stringify(value);

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const parts = path.split('.');
  let into = target;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(into, part) ? into[part] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      Object.defineProperty(into, part, { value: {}, enumerable: true, writable: true, configurable: true });
    }
    into = into[part] as Record<string, unknown>;
  }
  // defineProperty: a key such as `__proto__` or `constructor` becomes an own key, as JSON would make it.
  Object.defineProperty(into, parts[parts.length - 1] as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** An object arbitrary from a record of field arbitraries, each field present or not (required ones always). */
function fields(
  required: Record<string, fc.Arbitrary<unknown>>,
  optional: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required) }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

export type Breakers = Record<string, fc.Arbitrary<unknown>>;

/**
 * A body (or argument object): valid, valid with k of its fields broken (their paths returned so the answer
 * can be checked), or hostile (any JSON, or not JSON at all).
 */
export function bodyArbitrary(
  valid: fc.Arbitrary<Record<string, unknown>>,
  breakers: Breakers,
  weights = { valid: 3, broken: 5, hostile: 2 },
): fc.Arbitrary<{ value?: unknown; raw?: string; broken?: string[] }> {
  const keys = Object.keys(breakers);
  const broken = fc
    .tuple(valid, fc.shuffledSubarray(keys, { minLength: 1, maxLength: Math.min(3, keys.length) }))
    .chain(([base, chosen]) => {
      // A field and one of its own sub-fields cannot both be broken: keep the outer one.
      const picked = chosen.filter((k) => !chosen.some((other) => other !== k && k.startsWith(`${other}.`)));
      return fc.tuple(...picked.map((k) => breakers[k] as fc.Arbitrary<unknown>)).map((values) => {
        const body = structuredClone(base);
        picked.forEach((k, i) => {
          setPath(body, k, values[i]);
        });
        return { value: body, broken: picked };
      });
    });
  const hostile = fc.oneof(
    { weight: 3, arbitrary: hostileValue.map((value) => ({ value })) },
    { weight: 2, arbitrary: rawHostileBody.map((raw) => ({ raw })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }))
        .map(([base, extra]) => ({ value: { ...extra, ...base } })),
    },
  );
  return fc.oneof(
    { weight: weights.valid, arbitrary: valid.map((value) => ({ value })) },
    ...(keys.length > 0 ? [{ weight: weights.broken, arbitrary: broken }] : []),
    { weight: weights.hostile, arbitrary: hostile },
  );
}

/** Query parameters: each has valid values and, where the contract has a rule, invalid ones. */
export type QuerySpec = Record<string, { valid: fc.Arbitrary<string | string[]>; broken?: fc.Arbitrary<string> }>;

function queryArbitrary(spec: QuerySpec): fc.Arbitrary<{ qs: string; broken?: string[] }> {
  const names = Object.keys(spec);
  const toQs = (entries: Array<[string, string | string[]]>) => {
    const parts: string[] = [];
    for (const [name, value] of entries) {
      for (const v of Array.isArray(value) ? value : [value]) parts.push(`${enc(name)}=${enc(v)}`);
    }
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  };
  const validEntries = fc
    .tuple(...names.map((n) => fc.option((spec[n] as QuerySpec[string]).valid, { nil: undefined })))
    .map((values) =>
      names.flatMap((n, i) => (values[i] === undefined ? [] : [[n, values[i]] as [string, string | string[]]])),
    );
  const breakable = names.filter((n) => spec[n]?.broken);
  const broken =
    breakable.length === 0
      ? undefined
      : fc
          .tuple(
            validEntries,
            fc.shuffledSubarray(breakable, { minLength: 1, maxLength: Math.min(3, breakable.length) }),
          )
          .chain(([entries, chosen]) =>
            fc.tuple(...chosen.map((n) => spec[n]?.broken as fc.Arbitrary<string>)).map((values) => {
              const kept = entries.filter(([n]) => !chosen.includes(n));
              return {
                qs: toQs([...kept, ...chosen.map((n, i) => [n, values[i] as string] as [string, string])]),
                broken: chosen,
              };
            }),
          );
  const hostile = fc.oneof(
    fc
      .tuple(
        validEntries,
        fc.array(
          fc.tuple(fc.oneof(fc.constantFrom(...names, '__proto__', 'constructor'), hostileString), hostileString),
          { maxLength: 4 },
        ),
      )
      .map(([entries, extra]) => ({ qs: toQs([...entries, ...extra]) })),
    fc
      .constantFrom('?', '?&&', '?a', '?=x', '?%ZZ', '?page=%00', '?page[]=1', '?a[b]=c', `?x=${'a'.repeat(10_000)}`)
      .map((qs) => ({ qs })),
    fc
      .tuple(fc.constantFrom(...names), fc.array(hostileString, { minLength: 2, maxLength: 20 }))
      .map(([n, values]) => ({ qs: toQs([[n, values]]) })),
  );
  return fc.oneof(
    { weight: 4, arbitrary: validEntries.map((entries) => ({ qs: toQs(entries) })) },
    ...(broken ? [{ weight: 3, arbitrary: broken }] : []),
    { weight: 2, arbitrary: hostile },
  );
}

/** Environment names that break the slug rules (in a path or `?environment=`). */
const badEnvironment = fc.constantFrom('Production', 'a_b', 'a--b', '-x', 'x'.repeat(101), 'a b');

const pageQuery: QuerySpec = {
  page: {
    valid: fc.constantFrom('1', '2', '3', '', '1000000'),
    broken: fc.constantFrom('0', '-1', 'abc', '1.5', '1e3', '9999999999', ' 1'),
  },
  per_page: {
    valid: fc.constantFrom('1', '20', '100'),
    broken: fc.constantFrom('0', '101', '-5', 'x', '99999999999'),
  },
};

/** `max_chars` and `cursor` of the budgeted lists (and the context block's `max_chars`). */
const maxCharsQuery = {
  valid: fc.constantFrom('2000', '20000', '1000000', ''),
  broken: fc.constantFrom('1999', '1000001', 'x', '-5', '2000.5', '9'.repeat(30)),
};
const budgetQuery: QuerySpec = {
  max_chars: maxCharsQuery,
  cursor: {
    valid: fc.constantFrom('0', '1', '37', '499'),
    broken: fc.constantFrom('abc', '-1', '1234567', '1.5', '', ' 1'),
  },
};

/** The audit trail's filters and its keyset cursor (a seq). */
const auditQuery = (fx: Fixtures): QuerySpec => ({
  object_type: {
    valid: fc.constantFrom('prompt', 'artifact', 'memory', 'api_key'),
    broken: fc.constantFrom('user', 'PROMPT', ''),
  },
  object_id: { valid: fc.constantFrom(...fx.memories, 'prm_01JD0000000000000000000000'), broken: overlong(100) },
  action: {
    valid: fc.constantFrom('created', 'updated', 'deleted', 'restored'),
    broken: fc.constantFrom('edited', ''),
  },
  surface: { valid: fc.constantFrom('rest', 'mcp', 'dashboard', 'cli', 'import'), broken: fc.constantFrom('web', '') },
  key_id: { valid: fc.constantFrom('key_01JD0000000000000000000000'), broken: overlong(100) },
  since: {
    valid: fc.constantFrom('2020-01-01', '2026-11-21T10:00:00Z', '2026-11-21T10:00:00.123+02:00'),
    broken: fc.constantFrom('yesterday', '2026-13-45', '2026-02-30T99:00:00Z', 'x'.repeat(41)),
  },
  until: { valid: fc.constantFrom('2100-01-01T00:00:00Z'), broken: fc.constantFrom('soon', '1e9') },
  per_page: pageQuery.per_page as QuerySpec[string],
  cursor: {
    valid: fc.constantFrom('1', '5', '999999999999999'),
    broken: fc.constantFrom('abc', '-1', '1.5', '9999999999999999', ''),
  },
});

const bool = fc.constantFrom('true', 'false', '1', '0');
const badBool = fc.constantFrom('yes', 'no', 'TRUE', '2', 'x'.repeat(300));
const overlong = (n: number) => fc.constant('x'.repeat(n + 1));
const strOrArray = (item: fc.Arbitrary<string>) => fc.oneof(item, fc.array(item, { minLength: 1, maxLength: 3 }));

// -- auth --------------------------------------------------------------------------------------------------

type Auth = 'good' | 'none' | 'bad' | 'marketplace' | 'foreign-origin';
const restAuth = fc.oneof(
  { weight: 40, arbitrary: fc.constant<Auth>('good') },
  { weight: 1, arbitrary: fc.constantFrom<Auth>('none', 'bad', 'marketplace') },
);
const dashAuth = fc.oneof(
  { weight: 40, arbitrary: fc.constant<Auth>('good') },
  { weight: 1, arbitrary: fc.constantFrom<Auth>('none', 'bad', 'foreign-origin') },
);

export type Surface = 'rest' | 'dashboard';

function authHeaders(surface: Surface, auth: Auth, creds: Credentials, method: string): Record<string, string> {
  if (surface === 'rest') {
    if (auth === 'none') return {};
    if (auth === 'bad') return { authorization: `Bearer svk_${'x'.repeat(64)}` };
    return { authorization: `Bearer ${auth === 'marketplace' ? creds.marketplaceKey : creds.key}` };
  }
  const headers: Record<string, string> = {};
  if (auth !== 'none') headers.cookie = auth === 'bad' ? 'cairn_session=forged' : creds.cookie;
  if (method !== 'GET') headers.origin = auth === 'foreign-origin' ? 'https://evil.example' : creds.origin;
  return headers;
}

const CONTENT_TYPES = fc.oneof(
  { weight: 30, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/x-ndjson',
      '',
    ),
  },
);

interface RouteInput {
  path: string;
  query?: { qs: string; broken?: string[] };
  body?: { value?: unknown; raw?: string; broken?: string[] };
  headers?: Record<string, string>;
  /** Path parameters made invalid on purpose. */
  brokenParams?: string[];
  /** False when a path parameter is not a fixture (a 404/414 may then come before validation). */
  knownPath?: boolean;
}

/** Assembles a request for one route: auth, path, query, body; `broken` only when auth is right. */
function route(
  surface: Surface,
  creds: Credentials,
  key: string,
  method: FuzzRequest['method'],
  input: fc.Arbitrary<RouteInput>,
): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(input, surface === 'rest' ? restAuth : dashAuth, CONTENT_TYPES).map(([parts, auth, contentType]) => {
    const headers = { ...authHeaders(surface, auth, creds, method), ...(parts.headers ?? {}) };
    let payload: string | undefined;
    if (parts.body) {
      payload = parts.body.raw ?? json(parts.body.value);
      if (contentType) headers['content-type'] = contentType;
    }
    const broken = [...(parts.brokenParams ?? []), ...(parts.query?.broken ?? []), ...(parts.body?.broken ?? [])];
    const checkable =
      auth === 'good' &&
      parts.knownPath !== false &&
      (!parts.body || contentType.startsWith('application/json')) &&
      // Fastify validates params, then body, then query: only the first broken part is reported.
      broken.length > 0;
    const reported = !checkable
      ? undefined
      : parts.brokenParams?.length
        ? parts.brokenParams
        : parts.body?.broken?.length
          ? parts.body.broken
          : parts.query?.broken;
    return {
      spec: key,
      method,
      url: `${parts.path}${parts.query?.qs ?? ''}`,
      headers,
      ...(payload !== undefined && { payload }),
      ...(reported && { broken: reported }),
    };
  });
}

// -- field rules (one table per body; values known to be invalid under api-decisions) ---------------------

const manyDistinct = (n: number, length = 3) => Array.from({ length: n }, (_, i) => `${'l'.repeat(length)}${i}`);

const labelBreakers = fc.constantFrom<unknown>(
  manyDistinct(11),
  [''],
  ['   '],
  ['x'.repeat(51)],
  'label',
  [5],
  [null],
  manyDistinct(5000),
);
/** MCP tools also take a list as one comma-separated string, so a plain string is not a breaker there. */
const toolLabelBreakers = fc.constantFrom<unknown>(
  manyDistinct(11),
  [''],
  ['   '],
  ['x'.repeat(51)],
  [5],
  [null],
  manyDistinct(5000),
);
const slugBreakers = fc.constantFrom<unknown>('Bad Slug', 'a'.repeat(101), 'a--b', '-a', 'a-', 'ÄÖ', '', 5, '../x');
const projectBreakers = fc.constantFrom<unknown>('a//b', '/a', 'a/', 'a b', 'x'.repeat(201), '', 5, 'a\u0000b', 'ä');
const metadataTypeBreakers = fc.constantFrom<unknown>('x', 5, [], true, nested(40));
const unknownField = fc.constantFrom<unknown>(1, 'x', null, { a: 1 });

const promptTitle = validText(200);
const promptContent = fc.oneof(
  { weight: 6, arbitrary: validText(2000) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('Hello {{name}}', 'See @fz-base and {{topic}}', '@fz-ref @fz-base', '{{a}}{{b}}{{c}}'),
  },
  { weight: 1, arbitrary: fc.constant('x'.repeat(100_000)) },
);
const variableSchema = fc.constantFrom<unknown>(
  null,
  {},
  { name: { description: 'Who', required: true } },
  { topic: { enum: ['a', 'b'], default: 'a' } },
);

const promptBase = {
  title: promptTitle,
};
const promptOptional = {
  description: fc.oneof(validText(200), fc.constant(null)),
  status: fc.constantFrom('draft', 'published'),
  available_in_mcp: fc.boolean(),
  labels: validLabels,
  variable_schema: variableSchema,
  commit_message: fc.oneof(validText(500), fc.constant(null)),
};

const promptBreakers: Breakers = {
  title: fc.constantFrom<unknown>('', '   ', 'x'.repeat(201), 5, null, []),
  content: fc.constantFrom<unknown>('', '   ', 'x'.repeat(100_001), 5, null),
  description: fc.constantFrom<unknown>('x'.repeat(201), 5, []),
  status: fc.constantFrom<unknown>('archived', '', 1, null),
  available_in_mcp: fc.constantFrom<unknown>('true', 1, null),
  labels: labelBreakers,
  variable_schema: fc.constantFrom<unknown>(
    'x',
    [],
    { '1bad': {} },
    { v: { required: 'yes' } },
    { v: { enum: [] } },
    { v: { default: 'z', enum: ['a'] } },
    { v: { unknown: 1 } },
    Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, {}])),
  ),
  commit_message: fc.constantFrom<unknown>('x'.repeat(501), 5),
  zz_unknown: unknownField,
  constructor: unknownField,
  toString: unknownField,
};

const memoryBreakers: Breakers = {
  text: fc.constantFrom<unknown>('', '   ', 'x'.repeat(50_001), 5, null),
  project_name: projectBreakers,
  metadata: metadataTypeBreakers,
  'metadata.priority': fc.constantFrom<unknown>('urgent', 5, '', null),
  'metadata.category': fc.constantFrom<unknown>('', '  ', 'x'.repeat(101), 5),
  'metadata.tags': fc.constantFrom<unknown>([''], manyDistinct(21), ['x'.repeat(51)], 't', [5]),
  zz_unknown: unknownField,
};

const contentTypeBreakers = fc.constantFrom<unknown>(
  'notamime',
  '',
  'text/',
  '/x',
  'a/b; c',
  `text/${'x'.repeat(300)}`,
  5,
);
const artifactBreakers: Breakers = {
  title: fc.constantFrom<unknown>('', '   ', 'x'.repeat(201), 5, null),
  content: fc.constantFrom<unknown>(5, null, []),
  description: fc.constantFrom<unknown>('x'.repeat(501), 5),
  content_type: contentTypeBreakers,
  labels: labelBreakers,
  metadata: fc.constantFrom<unknown>('x', 5, [], nested(40), { big: 'x'.repeat(17 * 1024) }),
  zz_unknown: unknownField,
};

// -- REST and dashboard content routes ----------------------------------------------------------------------

function contentSpecs(surface: Surface, prefix: string, fx: Fixtures, creds: Credentials): Spec[] {
  // The dashboard serves the same route plugins as REST with a session: half a share is enough.
  const r = (method: FuzzRequest['method'], pattern: string, input: fc.Arbitrary<RouteInput>): Spec => ({
    key: `${method} ${prefix}${pattern}`,
    arbitrary: route(surface, creds, `${method} ${prefix}${pattern}`, method, input),
    weight: surface === 'rest' ? 1 : 0.5,
  });
  const hostileSegment = hostileString.filter((s) => s.length > 0);
  const knownPrompt = (p: string) => fx.prompts.includes(p);
  const promptRef = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fx.prompts) },
    { weight: 1, arbitrary: validSlug },
    { weight: 2, arbitrary: hostileSegment },
  );
  const deletablePrompt = fc.oneof(fc.constantFrom(...fx.disposablePrompts), validSlug, hostileSegment);
  const memoryRef = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fx.memories) },
    { weight: 1, arbitrary: fc.constant('mem_01JD0000000000000000000000') },
    { weight: 2, arbitrary: hostileSegment },
  );
  const deletableMemory = fc.oneof(fc.constantFrom(...fx.disposableMemories), hostileSegment);
  const artifactRef = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fx.artifacts) },
    { weight: 1, arbitrary: fc.record({ project: validProject, slug: validSlug }) },
    { weight: 2, arbitrary: fc.record({ project: hostileSegment, slug: hostileSegment }) },
  );
  const deletableArtifact = fc.oneof(
    fc.constantFrom(...fx.disposableArtifacts),
    fc.record({ project: hostileSegment, slug: hostileSegment }),
  );
  const versionParam = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('1', '2', '3', '999999999').map((v) => ({ v, broken: false })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('0', '-1', 'abc', '1.5', '1e3', '9999999999', '01').map((v) => ({ v, broken: true })),
    },
  );
  const ifMatch = fc.option(fc.oneof(fc.constantFrom('"1"', '"2"', '*', 'W/"1"'), hostileString), { nil: undefined });
  const promptsQuery: QuerySpec = {
    full: { valid: bool, broken: badBool },
    status: { valid: fc.constantFrom('draft', 'published'), broken: fc.constantFrom('archived', 'x') },
    label: { valid: strOrArray(fc.constantFrom('alpha', 'beta')) },
    search: { valid: fc.oneof(validText(100), fc.constant('x'.repeat(1000))), broken: overlong(1000) },
    environment: { valid: fc.constantFrom('production', 'staging'), broken: badEnvironment },
    ...pageQuery,
    ...budgetQuery,
  };
  const environmentParam = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('production', 'staging', 'dev-1').map((v) => ({ v, broken: false })) },
    { weight: 1, arbitrary: badEnvironment.map((v) => ({ v, broken: true })) },
  );
  const memoriesQuery: QuerySpec = {
    project_name: {
      valid: validProject,
      broken: fc.constantFrom('a//b', '/a', 'x'.repeat(201), 'a b'),
    },
    category: { valid: fc.constantFrom('style', 'x'.repeat(100)), broken: overlong(100) },
    priority: { valid: fc.constantFrom('high', 'medium', 'low'), broken: fc.constantFrom('urgent', '') },
    tag: { valid: strOrArray(fc.constantFrom('a', 'x'.repeat(50))), broken: overlong(50) },
    search: { valid: fc.oneof(validText(100), fc.constant('')), broken: overlong(1000) },
    explain: { valid: bool, broken: badBool },
    ...pageQuery,
    ...budgetQuery,
  };
  const artifactsQuery: QuerySpec = {
    project: { valid: validProject, broken: fc.constantFrom('a//b', 'x'.repeat(201), '/a') },
    label: { valid: strOrArray(fc.constantFrom('a', 'x'.repeat(50))), broken: overlong(50) },
    content_type: { valid: validMime, broken: overlong(255) },
    search: { valid: validText(100), broken: overlong(1000) },
    ...pageQuery,
    ...budgetQuery,
  };
  const memoryValid = fields(
    { text: validText(50_000) },
    {
      project_name: fc.oneof(validProject, fc.constant(null)),
      metadata: fields(
        {},
        {
          category: validText(100),
          priority: fc.constantFrom('high', 'medium', 'low'),
          tags: fc.uniqueArray(validText(50), { maxLength: 20, selector: (t) => t.trim() }),
          other: fc.jsonValue({ maxDepth: 2 }),
        },
      ),
    },
  );
  const artifactValid = fields(
    {
      project: validProject,
      title: validText(200),
      content: fc.oneof(fc.string({ maxLength: 200 }), fc.constant('x'.repeat(200_000))),
    },
    {
      slug: validSlug,
      description: fc.oneof(validText(500), fc.constant(null)),
      content_type: validMime,
      labels: validLabels,
      metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    },
  );

  // Webhooks: no endpoint is ever created here (every URL below is refused: private, malformed or not
  // http(s)), so nothing is delivered; the ids are unknown (404) or not ids at all.
  const webhookId = fc.oneof(fc.constant('whk_01JZZZZZZZZZZZZZZZZZZZZZZZ'), hostileSegment);
  const webhookUrl = fc.constantFrom(
    'http://127.0.0.1/hook',
    'http://10.1.2.3/x',
    'http://[::1]:8080/',
    'https://192.168.0.1/',
  );
  const webhookEvents = fc.subarray(['memory.created', 'prompt.updated', 'environment.moved', 'key.revoked'], {
    minLength: 1,
  });
  const webhookBreakers = {
    url: fc.constantFrom<unknown>('ftp://x/y', 'not a url', `https://x.example/${'a'.repeat(2100)}`, 5, null, ''),
    events: fc.constantFrom<unknown>([], ['nope'], 'memory.created', Array(30).fill('memory.created'), null),
    description: fc.constantFrom<unknown>('x'.repeat(201), 5, null),
    enabled: fc.constantFrom<unknown>('yes', 1, null),
    zz_unknown: unknownField,
  };
  const webhookOptional = { description: validText(200), enabled: fc.boolean() };
  const webhookRoutes: Spec[] = [
    r('GET', '/webhooks', fc.constant({ path: `${prefix}/webhooks` })),
    r(
      'POST',
      '/webhooks',
      bodyArbitrary(fields({ url: webhookUrl, events: webhookEvents }, webhookOptional), webhookBreakers).map(
        (body) => ({ path: `${prefix}/webhooks`, body }),
      ),
    ),
    ...(['GET', 'DELETE'] as const).map((method) =>
      r(
        method,
        '/webhooks/:id',
        webhookId.map((id) => ({ path: `${prefix}/webhooks/${enc(id)}`, knownPath: false })),
      ),
    ),
    r(
      'PUT',
      '/webhooks/:id',
      fc
        .tuple(
          webhookId,
          bodyArbitrary(fields({}, { url: webhookUrl, events: webhookEvents, ...webhookOptional }), webhookBreakers),
        )
        .map(([id, body]) => ({ path: `${prefix}/webhooks/${enc(id)}`, body, knownPath: false })),
    ),
    ...(['rotate-secret', 'test'] as const).map((action) =>
      r(
        'POST',
        `/webhooks/:id/${action}`,
        webhookId.map((id) => ({ path: `${prefix}/webhooks/${enc(id)}/${action}`, knownPath: false })),
      ),
    ),
    ...(['deliveries', 'attempts'] as const).map((list) =>
      r(
        'GET',
        `/webhooks/:id/${list}`,
        fc
          .tuple(webhookId, queryArbitrary(pageQuery))
          .map(([id, query]) => ({ path: `${prefix}/webhooks/${enc(id)}/${list}`, query, knownPath: false })),
      ),
    ),
  ];

  return [
    ...webhookRoutes,
    r(
      'GET',
      '/audit',
      queryArbitrary(auditQuery(fx)).map((query) => ({ path: `${prefix}/audit`, query })),
    ),
    r(
      'GET',
      '/prompts',
      queryArbitrary(promptsQuery).map((query) => ({ path: `${prefix}/prompts`, query })),
    ),
    r(
      'GET',
      '/prompts/:id_or_slug',
      fc
        .tuple(
          promptRef,
          queryArbitrary({ environment: { valid: fc.constantFrom('production', 'staging'), broken: badEnvironment } }),
        )
        .map(([p, query]) => ({ path: `${prefix}/prompts/${enc(p)}`, query, knownPath: knownPrompt(p) })),
    ),
    r(
      'GET',
      '/prompts/:id_or_slug/environments',
      promptRef.map((p) => ({ path: `${prefix}/prompts/${enc(p)}/environments`, knownPath: knownPrompt(p) })),
    ),
    r(
      'PUT',
      '/prompts/:id_or_slug/environments/:name',
      fc
        .tuple(
          fc.constantFrom(...fx.prompts),
          environmentParam,
          bodyArbitrary(fields({ version: fc.integer({ min: 1, max: 3 }) }, { marketplace: fc.boolean() }), {
            version: fc.constantFrom<unknown>(0, -1, 1.5, '1', null, 2 ** 53, 1e308),
            marketplace: fc.constantFrom<unknown>('yes', 1, null),
            zz_unknown: unknownField,
          }),
        )
        // A broken name with a well-formed body: a body that cannot be parsed is refused before params are checked.
        .map(([p, name, body]) => ({
          path: `${prefix}/prompts/${enc(p)}/environments/${enc(name.v)}`,
          body: name.broken ? { value: { version: 1 } } : body,
          ...(name.broken && { brokenParams: ['name'] }),
        })),
    ),
    r(
      'DELETE',
      '/prompts/:id_or_slug/environments/:name',
      fc.tuple(fc.constantFrom(...fx.prompts), environmentParam).map(([p, name]) => ({
        path: `${prefix}/prompts/${enc(p)}/environments/${enc(name.v)}`,
        ...(name.broken && { brokenParams: ['name'] }),
      })),
    ),
    r(
      'POST',
      '/prompts',
      bodyArbitrary(fields({ ...promptBase, content: promptContent }, { ...promptOptional, slug: validSlug }), {
        ...promptBreakers,
        slug: slugBreakers,
      }).map((body) => ({ path: `${prefix}/prompts`, body })),
    ),
    r(
      'PUT',
      '/prompts/:id_or_slug',
      fc
        .tuple(
          fc.constantFrom(...fx.prompts),
          bodyArbitrary(fields({}, { ...promptBase, content: promptContent, ...promptOptional }), {
            ...promptBreakers,
            slug: fc.constantFrom<unknown>('new-slug', 5),
            version: fc.constantFrom<unknown>(1, 99),
            id: unknownField,
            created_at: unknownField,
          }),
          ifMatch,
        )
        .map(([p, body, match]) => ({
          path: `${prefix}/prompts/${enc(p)}`,
          body,
          ...(match !== undefined && { headers: { 'if-match': match } }),
        })),
    ),
    r(
      'DELETE',
      '/prompts/:id_or_slug',
      deletablePrompt.map((p) => ({ path: `${prefix}/prompts/${enc(p)}` })),
    ),
    r(
      'GET',
      '/prompts/:id_or_slug/versions',
      fc
        .tuple(promptRef, queryArbitrary(pageQuery))
        .map(([p, query]) => ({ path: `${prefix}/prompts/${enc(p)}/versions`, query, knownPath: knownPrompt(p) })),
    ),
    r(
      'GET',
      '/prompts/:id_or_slug/versions/:version',
      fc.tuple(fc.constantFrom(...fx.prompts), versionParam).map(([p, v]) => ({
        path: `${prefix}/prompts/${enc(p)}/versions/${enc(v.v)}`,
        ...(v.broken && { brokenParams: ['version'] }),
      })),
    ),
    r(
      'POST',
      '/prompts/:id_or_slug/restore',
      fc
        .tuple(
          promptRef,
          bodyArbitrary(fields({ version: fc.integer({ min: 1, max: 3 }) }, { commit_message: validText(500) }), {
            version: fc.constantFrom<unknown>(0, -1, 1.5, '1', null, 2 ** 53, 1e308),
            commit_message: fc.constantFrom<unknown>('x'.repeat(501), 5),
            zz_unknown: unknownField,
          }),
          ifMatch,
        )
        .map(([p, body, match]) => ({
          path: `${prefix}/prompts/${enc(p)}/restore`,
          body,
          knownPath: knownPrompt(p),
          ...(match !== undefined && { headers: { 'if-match': match } }),
        })),
    ),
    r(
      'POST',
      '/prompts/:id_or_slug/render',
      fc
        .tuple(
          promptRef,
          bodyArbitrary(
            fields(
              {},
              {
                variables: fc.dictionary(
                  fc.constantFrom('name', 'topic', 'a', 'b', 'c'),
                  fc.oneof(validText(100), fc.integer(), fc.boolean()),
                ),
                resolve: fc.boolean(),
                strict: fc.boolean(),
              },
            ),
            {
              variables: fc.constantFrom<unknown>('x', [], 5),
              'variables.name': fc.constantFrom<unknown>({}, null, [], 'x'.repeat(100_001)),
              resolve: fc.constantFrom<unknown>('yes', 1, null),
              strict: fc.constantFrom<unknown>('no', 0),
              zz_unknown: unknownField,
            },
          ),
        )
        .map(([p, body]) => ({ path: `${prefix}/prompts/${enc(p)}/render`, body, knownPath: knownPrompt(p) })),
    ),
    r(
      'GET',
      '/prompts/:id_or_slug/referenced-by',
      fc
        .tuple(promptRef, queryArbitrary(pageQuery))
        .map(([p, query]) => ({ path: `${prefix}/prompts/${enc(p)}/referenced-by`, query, knownPath: knownPrompt(p) })),
    ),

    r(
      'GET',
      '/memories',
      queryArbitrary(memoriesQuery).map((query) => ({ path: `${prefix}/memories`, query })),
    ),
    r(
      'GET',
      '/memories/:memory_id',
      memoryRef.map((m) => ({ path: `${prefix}/memories/${enc(m)}` })),
    ),
    r(
      'POST',
      '/memories',
      bodyArbitrary(memoryValid, memoryBreakers).map((body) => ({ path: `${prefix}/memories`, body })),
    ),
    r(
      'POST',
      '/memories/batch',
      bodyArbitrary(fields({ memories: fc.array(memoryValid, { minLength: 1, maxLength: 3 }) }), {
        // The list itself, or a list with one bad item (details then name `memories.1.text`).
        memories: fc.oneof(
          fc.constantFrom<unknown>(
            [],
            'x',
            null,
            5,
            {},
            Array.from({ length: 101 }, () => ({ text: 'a' })),
          ),
          fc
            .tuple(memoryValid, fc.constantFrom<unknown>('', '   ', 5, null))
            .map(([item, text]) => [item, { ...item, text }]),
        ),
        zz_unknown: unknownField,
      }).map((body) => ({ path: `${prefix}/memories/batch`, body })),
    ),
    r(
      'PUT',
      '/memories/:memory_id',
      fc
        .tuple(
          fc.constantFrom(...fx.memories),
          bodyArbitrary(
            fields(
              {},
              {
                text: validText(1000),
                project_name: fc.oneof(validProject, fc.constant(null)),
                metadata: fc.dictionary(
                  fc.constantFrom('category', 'priority', 'tags', 'other'),
                  fc.constantFrom<unknown>(null, 'style', 'high', ['t1'], { deep: true }),
                ),
              },
            ),
            {
              text: memoryBreakers.text as fc.Arbitrary<unknown>,
              project_name: projectBreakers,
              metadata: metadataTypeBreakers,
              memory_id: unknownField,
              score: unknownField,
              zz_unknown: unknownField,
            },
          ),
        )
        .map(([m, body]) => ({ path: `${prefix}/memories/${enc(m)}`, body })),
    ),
    r(
      'DELETE',
      '/memories/:memory_id',
      deletableMemory.map((m) => ({ path: `${prefix}/memories/${enc(m)}` })),
    ),
    r(
      'GET',
      '/memories/:memory_id/versions',
      fc.tuple(memoryRef, queryArbitrary(pageQuery)).map(([m, query]) => ({
        path: `${prefix}/memories/${enc(m)}/versions`,
        query,
        knownPath: fx.memories.includes(m),
      })),
    ),
    r(
      'GET',
      '/memories/:memory_id/versions/:version',
      fc.tuple(fc.constantFrom(...fx.memories), versionParam).map(([m, v]) => ({
        path: `${prefix}/memories/${enc(m)}/versions/${enc(v.v)}`,
        ...(v.broken && { brokenParams: ['version'] }),
      })),
    ),
    r(
      'POST',
      '/memories/:memory_id/restore',
      fc
        .tuple(
          memoryRef,
          bodyArbitrary(fields({ version: fc.integer({ min: 1, max: 3 }) }), {
            version: fc.constantFrom<unknown>(0, -1, 1.5, '1', null, 2 ** 53, 1e308),
            zz_unknown: unknownField,
          }),
        )
        .map(([m, body]) => ({
          path: `${prefix}/memories/${enc(m)}/restore`,
          body,
          knownPath: fx.memories.includes(m),
        })),
    ),

    r(
      'GET',
      '/artifacts',
      queryArbitrary(artifactsQuery).map((query) => ({ path: `${prefix}/artifacts`, query })),
    ),
    r(
      'POST',
      '/artifacts',
      bodyArbitrary(artifactValid, {
        ...artifactBreakers,
        project: projectBreakers,
        slug: slugBreakers,
      }).map((body) => ({ path: `${prefix}/artifacts`, body })),
    ),
    r(
      'GET',
      '/artifacts/:project/:slug',
      artifactRef.map((a) => ({ path: `${prefix}/artifacts/${enc(a.project)}/${enc(a.slug)}` })),
    ),
    r(
      'PUT',
      '/artifacts/:project/:slug',
      fc
        .tuple(
          fc.constantFrom(...fx.artifacts),
          bodyArbitrary(
            fields(
              {},
              {
                title: validText(200),
                description: validText(500),
                content: fc.string({ maxLength: 300 }),
                content_type: validMime,
                labels: validLabels,
                metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
              },
            ),
            {
              ...artifactBreakers,
              project: fc.constantFrom<unknown>('other', 5),
              slug: fc.constantFrom<unknown>('other', 5),
              sha256: unknownField,
            },
          ),
          ifMatch,
        )
        .map(([a, body, match]) => ({
          path: `${prefix}/artifacts/${enc(a.project)}/${enc(a.slug)}`,
          body,
          ...(match !== undefined && { headers: { 'if-match': match } }),
        })),
    ),
    r(
      'DELETE',
      '/artifacts/:project/:slug',
      deletableArtifact.map((a) => ({ path: `${prefix}/artifacts/${enc(a.project)}/${enc(a.slug)}` })),
    ),
    r(
      'GET',
      '/artifacts/:project/:slug/raw',
      artifactRef.map((a) => ({ path: `${prefix}/artifacts/${enc(a.project)}/${enc(a.slug)}/raw` })),
    ),
    r(
      'GET',
      '/artifacts/:project/:slug/versions',
      fc.tuple(artifactRef, queryArbitrary(pageQuery)).map(([a, query]) => ({
        path: `${prefix}/artifacts/${enc(a.project)}/${enc(a.slug)}/versions`,
        query,
        knownPath: fx.artifacts.includes(a),
      })),
    ),
    r(
      'GET',
      '/artifacts/:project/:slug/versions/:n',
      fc.tuple(fc.constantFrom(...fx.artifacts), versionParam).map(([a, v]) => ({
        path: `${prefix}/artifacts/${enc(a.project)}/${enc(a.slug)}/versions/${enc(v.v)}`,
        ...(v.broken && { brokenParams: ['n'] }),
      })),
    ),
  ];
}

// -- REST-only routes --------------------------------------------------------------------------------------

function restOnlySpecs(creds: Credentials, bundle: string[]): Spec[] {
  const r = (method: FuzzRequest['method'], url: string, input: fc.Arbitrary<RouteInput>, weight = 1): Spec => ({
    key: `${method} ${url}`,
    arbitrary: route('rest', creds, `${method} ${url}`, method, input),
    weight,
  });
  const lines = bundle.length > 0 ? bundle : ['{}'];
  const mutatedLine = fc.tuple(fc.constantFrom(...lines), hostileString, hostileValue).map(([line, key, value]) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const keys = Object.keys(parsed);
      const target = keys[Math.abs(key.length) % Math.max(1, keys.length)] ?? key;
      parsed[target] = value;
      return JSON.stringify(parsed);
    } catch {
      return line;
    }
  });
  const bundleBody = fc.oneof(
    { weight: 3, arbitrary: fc.constant(lines.join('\n')) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.integer({ min: 0, max: lines.length - 1 }), mutatedLine)
        .map(([i, line]) => lines.map((l, j) => (j === i ? line : l)).join('\n')),
    },
    { weight: 2, arbitrary: fc.shuffledSubarray(lines).map((ls) => ls.join('\n')) },
    { weight: 2, arbitrary: rawHostileBody },
    { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }).map((ls) => ls.join('\n')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `${lines[0]}\n${'a'.repeat(MiB)}\n`,
        `${lines[0]}\n${'\n'.repeat(100_000)}`,
        `${lines[0]}\r\n${lines.slice(1).join('\r\n')}`,
      ),
    },
  );
  const bundleType = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('application/x-ndjson', 'application/jsonl') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('application/json', 'text/plain', '', 'application/x-ndjson; charset=utf-8'),
    },
  );
  return [
    r('GET', '/api/v1/me', fc.constant({ path: '/api/v1/me' })),
    r(
      'GET',
      '/api/v1/context',
      queryArbitrary({
        project_name: { valid: validProject, broken: fc.constantFrom('a//b', '/a', 'x'.repeat(201), 'a b') },
        task: { valid: fc.oneof(validText(300), fc.constant('deploy the service')), broken: overlong(2000) },
        max_chars: maxCharsQuery,
      }).map((query) => ({ path: '/api/v1/context', query })),
      0.5,
    ),
    r(
      'GET',
      '/api/v1/export',
      queryArbitrary({ x: { valid: hostileString } }).map((query) => ({ path: '/api/v1/export', query })),
      0.3, // an export streams the user's whole content, which the run keeps growing
    ),
    {
      key: 'POST /api/v1/import',
      weight: 1,
      arbitrary: fc
        .tuple(
          queryArbitrary({
            dry_run: { valid: fc.constantFrom('true', 'true', 'true', 'false', '1', '0'), broken: badBool },
          }),
          bundleBody,
          bundleType,
          restAuth,
        )
        .map(([query, payload, type, auth]) => ({
          spec: 'POST /api/v1/import',
          method: 'POST' as const,
          url: `/api/v1/import${query.qs}`,
          headers: { ...authHeaders('rest', auth, creds, 'POST'), ...(type && { 'content-type': type }) },
          payload,
          // The query is validated before the body is read.
          ...(query.broken && auth === 'good' && { broken: query.broken }),
        })),
    },
  ];
}

// -- dashboard-only routes ------------------------------------------------------------------------------------

function dashboardSpecs(creds: Credentials, dash: DashboardFixtures, adminEmail: string): Spec[] {
  const P = '/dashboard/api';
  const r = (method: FuzzRequest['method'], pattern: string, input: fc.Arbitrary<RouteInput>, weight = 1): Spec => ({
    key: `${method} ${P}${pattern}`,
    arbitrary: route('dashboard', creds, `${method} ${P}${pattern}`, method, input),
    weight,
  });
  // Routes that hash passwords (scrypt, slow by design) get a smaller share of the run.
  const rw = (method: FuzzRequest['method'], pattern: string, input: fc.Arbitrary<RouteInput>) =>
    r(method, pattern, input, 0.15);
  const email = fc.oneof(
    fc.constantFrom(adminEmail, 'nobody@example.com', 'Mixed.Case@Example.COM'),
    fc.emailAddress({ size: 'small' }),
  );
  const emailBreakers = fc.constantFrom<unknown>(
    'not-an-email',
    '',
    'a@b',
    '@b.c',
    'a b@c.d',
    `${'x'.repeat(250)}@example.com`,
    `a@${'.'.repeat(2000)}@`,
    5,
    null,
  );
  // Valid sign-ups and logins run scrypt (slow by design): few of them, most requests break a field.
  const rare = { valid: 1, broken: 8, hostile: 3 };
  const idParam = (known: string[]) =>
    fc.oneof(
      fc.constantFrom(...(known.length > 0 ? known : ['none'])),
      hostileString.filter((s) => s.length > 0),
    );
  return [
    r('GET', '/config', fc.constant({ path: `${P}/config` })),
    rw(
      'POST',
      '/signup',
      bodyArbitrary(
        fields({ email, password: fc.constantFrom('correct horse battery staple', 'another long passphrase 42') }, {}),
        {
          email: emailBreakers,
          password: fc.constantFrom<unknown>('short', 'password', '12345678', 5, null, 'x'.repeat(129)),
          invite_code: fc.constantFrom<unknown>('x'.repeat(201), 5),
          is_admin: unknownField,
          zz_unknown: unknownField,
        },
        rare,
      ).map((body) => ({ path: `${P}/signup`, body })),
    ),
    rw(
      'POST',
      '/login',
      bodyArbitrary(
        fields({ email, password: fc.constantFrom('wrong password 1', 'correct horse battery staple') }),
        {
          email: emailBreakers,
          password: fc.constantFrom<unknown>('', 5, null, 'x'.repeat(1025)),
          zz_unknown: unknownField,
        },
        rare,
      ).map((body) => ({ path: `${P}/login`, body })),
    ),
    // Never with the run's own session cookie (it would end the session every later request uses).
    {
      key: `POST ${P}/logout`,
      arbitrary: fc
        .constantFrom('', 'cairn_session=forged', `cairn_session=${'a'.repeat(5000)}`, 'cairn_session=%ZZ')
        .map((cookie) => ({
          spec: `POST ${P}/logout`,
          method: 'POST' as const,
          url: `${P}/logout`,
          headers: { origin: creds.origin, ...(cookie && { cookie }) },
        })),
    },
    r('GET', '/me', fc.constant({ path: `${P}/me` })),
    // Always at least one broken field: a valid change would replace the password the run relies on.
    rw(
      'POST',
      '/password',
      bodyArbitrary(
        fields({
          current_password: fc.constant('wrong password 1'),
          new_password: fc.constant('a brand new passphrase'),
        }),
        {
          current_password: fc.constantFrom<unknown>(5, null, 'x'.repeat(1025)),
          new_password: fc.constantFrom<unknown>('short', 'password', 5, null, 'x'.repeat(129)),
          zz_unknown: unknownField,
        },
        { valid: 0, broken: 8, hostile: 3 },
      ).map((body) => ({ path: `${P}/password`, body })),
    ),
    r('GET', '/admin/users', fc.constant({ path: `${P}/admin/users` })),
    r(
      'PATCH',
      '/admin/users/:id',
      fc
        .tuple(
          idParam(dash.otherUserIds),
          bodyArbitrary(
            fields(
              {},
              {
                tier: fc.constantFrom('free', 'pro', 'enterprise'),
                rate_limit: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.constant(null)),
              },
            ),
            {
              tier: fc.constantFrom<unknown>('gold', '', 5, null),
              rate_limit: fc.constantFrom<unknown>(-1, 1.5, 'x', 2e9, 1e308),
              is_admin: unknownField,
              email: unknownField,
            },
          ),
        )
        .map(([id, body]) => ({
          path: `${P}/admin/users/${enc(id)}`,
          body,
          knownPath: dash.otherUserIds.includes(id),
        })),
    ),
    r('POST', '/admin/invites', fc.constant({ path: `${P}/admin/invites` })),
    r('GET', '/keys', fc.constant({ path: `${P}/keys` })),
    r(
      'POST',
      '/keys',
      bodyArbitrary(
        fields({
          name: validText(100),
          integrations: fc.subarray(['ai_tools', 'cli', 'mcp_server', 'marketplace'], { minLength: 1 }),
        }),
        {
          name: fc.constantFrom<unknown>('', '   ', 'x'.repeat(101), 5, null),
          integrations: fc.constantFrom<unknown>([], ['bogus'], 'cli', [5], manyDistinct(5000)),
          zz_unknown: unknownField,
        },
      ).map((body) => ({ path: `${P}/keys`, body })),
    ),
    r(
      'DELETE',
      '/keys/:id',
      idParam(dash.disposableKeyIds).map((id) => ({ path: `${P}/keys/${enc(id)}` })),
    ),
    r(
      'POST',
      '/keys/:id/revoke',
      idParam(dash.disposableKeyIds).map((id) => ({ path: `${P}/keys/${enc(id)}/revoke` })),
    ),
    r(
      'GET',
      '/usage',
      queryArbitrary({ hours: { valid: fc.oneof(fc.constantFrom('1', '48', '168'), hostileString) } }).map((query) => ({
        path: `${P}/usage`,
        query,
      })),
    ),
  ];
}

// -- infrastructure (public) routes ------------------------------------------------------------------------

function publicSpecs(): Spec[] {
  const get = (url: string, input: fc.Arbitrary<string>): Spec => ({
    key: `GET ${url}`,
    weight: 0.3,
    arbitrary: input.map((path) => ({ spec: `GET ${url}`, method: 'GET' as const, url: path, headers: {} })),
  });
  const query = fc.oneof(
    fc.constant(''),
    hostileString.map((s) => `?${enc(s)}=${enc(s)}`),
  );
  const traversal = fc.oneof(
    fc.constantFrom(
      '../../../../etc/passwd',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '%2e%2e/%2e%2e/package.json',
      '....//....//etc/passwd',
      'static/../../package.json',
      '%00',
      'static/%ZZ',
      'index.html',
      '.env',
    ),
    hostileString.map(enc),
  );
  // The paths OAuth clients probe: every method answers a 404 in the error shape (no OAuth here).
  const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
  const oauthPaths = ['/register', '/authorize', '/token'];
  const wellKnown = [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  ];
  const probe = (method: (typeof METHODS)[number], route: string, input: fc.Arbitrary<string>): Spec => ({
    key: `${method} ${route}`,
    weight: 0.05,
    arbitrary: fc.tuple(input, fc.option(hostileString)).map(([path, body]) => ({
      spec: `${method} ${route}`,
      method,
      url: path,
      headers: (body === null || method === 'GET' ? {} : { 'content-type': 'application/json' }) as Record<
        string,
        string
      >,
      ...(body !== null && method !== 'GET' && { payload: JSON.stringify({ client_name: body }) }),
    })),
  });
  const oauthSpecs = METHODS.flatMap((method) => [
    ...oauthPaths.map((path) =>
      probe(
        method,
        path,
        query.map((q) => `${path}${q}`),
      ),
    ),
    ...wellKnown.flatMap((path) => [
      probe(
        method,
        path,
        query.map((q) => `${path}${q}`),
      ),
      probe(
        method,
        `${path}/*`,
        traversal.map((rest) => `${path}/${rest}`),
      ),
    ]),
  ]);
  return [
    ...oauthSpecs,
    // The dashboard page: a placeholder route without a build, static files (`/*`) with one.
    get(
      '/',
      query.map((q) => `/${q}`),
    ),
    get(
      '/*',
      traversal.map((p) => `/${p}`),
    ),
    get(
      '/healthz',
      query.map((q) => `/healthz${q}`),
    ),
    get(
      '/readyz',
      query.map((q) => `/readyz${q}`),
    ),
    get(
      '/api/v1/openapi.json',
      query.map((q) => `/api/v1/openapi.json${q}`),
    ),
    get(
      '/api/v1/docs',
      query.map((q) => `/api/v1/docs${q}`),
    ),
    get('/api/v1/docs/json', fc.constant('/api/v1/docs/json')),
    get('/api/v1/docs/yaml', fc.constant('/api/v1/docs/yaml')),
    get('/api/v1/docs/static/index.html', fc.constant('/api/v1/docs/static/index.html')),
    get('/api/v1/docs/static/swagger-initializer.js', fc.constant('/api/v1/docs/static/swagger-initializer.js')),
    get(
      '/api/v1/docs/*',
      traversal.map((p) => `/api/v1/docs/${p}`),
    ),
  ];
}

// -- MCP ---------------------------------------------------------------------------------------------------

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface ToolArgs {
  valid: fc.Arbitrary<Record<string, unknown>>;
  breakers: Breakers;
}

/** Tool arguments under the same rules as REST (the domain validates whatever the caller). */
function toolArgs(fx: Fixtures): Record<string, ToolArgs> {
  const limitBreakers = (max: number) => fc.constantFrom<unknown>(0, -1, max + 1, 1.5, 'abc', '', null, 1e308);
  const search = fc.oneof(validText(100), fc.constant(''));
  const budget = { max_chars: fc.oneof(fc.integer({ min: 2000, max: 1_000_000 }), fc.constant('20000')) };
  const budgetBreakers = {
    max_chars: fc.constantFrom<unknown>(0, 1999, 1_000_001, 'abc', 1.5, null),
    cursor: fc.constantFrom<unknown>('abc', -1, 1_234_567, 1.5, ''),
  };
  const cursor = fc.oneof(fc.constantFrom('0', '3', '499'), fc.nat(600));
  return {
    svc_get_context: {
      valid: fields(
        {},
        { project_name: validProject, task: fc.oneof(validText(300), fc.constant('deploy it')), ...budget },
      ),
      breakers: {
        project_name: projectBreakers,
        task: fc.constantFrom<unknown>('x'.repeat(2001), 5, null),
        max_chars: budgetBreakers.max_chars,
        zz_unknown: unknownField,
      },
    },
    svc_create_memory: {
      valid: fields(
        { text: validText(50_000) },
        {
          project_name: validProject,
          metadata: fields(
            {},
            {
              category: validText(100),
              priority: fc.constantFrom('high', 'low'),
              tags: fc.oneof(fc.constant('a, b'), fc.constant(['x'])),
            },
          ),
        },
      ),
      // Tags may also be one comma-separated string on MCP.
      breakers: {
        ...memoryBreakers,
        'metadata.tags': fc.constantFrom<unknown>([''], manyDistinct(21), ['x'.repeat(51)], [5]),
      },
    },
    svc_search_memories: {
      valid: fields(
        {},
        {
          search,
          project_name: validProject,
          limit: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom('10', ' 5 ')),
          cursor,
          ...budget,
        },
      ),
      breakers: {
        search: fc.constantFrom<unknown>('x'.repeat(1001), 5, null),
        project_name: projectBreakers,
        limit: limitBreakers(50),
        ...budgetBreakers,
        zz_unknown: unknownField,
      },
    },
    svc_get_memory: {
      valid: fields({ memory_id: fc.constantFrom(...fx.memories) }),
      breakers: { memory_id: fc.constantFrom<unknown>(5, null, []), zz_unknown: unknownField },
    },
    svc_update_memory: {
      valid: fields(
        { memory_id: fc.constantFrom(...fx.memories) },
        {
          text: validText(1000),
          metadata: fc.constantFrom<Record<string, unknown>>({ category: 'x' }, { tags: 'a,b' }, { priority: null }),
        },
      ),
      breakers: {
        text: fc.constantFrom<unknown>('', '   ', 'x'.repeat(50_001), 5),
        metadata: metadataTypeBreakers,
        'metadata.priority': fc.constantFrom<unknown>('urgent', 5),
        memory_id: fc.constantFrom<unknown>(5, null),
        zz_unknown: unknownField,
      },
    },
    svc_delete_memory: {
      valid: fields({ memory_id: fc.oneof(fc.constantFrom(...fx.disposableMemories), hostileString) }),
      breakers: { memory_id: fc.constantFrom<unknown>(5, null), zz_unknown: unknownField },
    },
    svc_list_memory_versions: {
      valid: fields(
        { memory_id: fc.constantFrom(...fx.memories) },
        { limit: fc.integer({ min: 1, max: 100 }), cursor },
      ),
      breakers: {
        memory_id: fc.constantFrom<unknown>(5, null),
        limit: limitBreakers(100),
        zz_unknown: unknownField,
      },
    },
    svc_restore_memory: {
      valid: fields({ memory_id: fc.constantFrom(...fx.memories), version: fc.integer({ min: 1, max: 3 }) }),
      breakers: {
        memory_id: fc.constantFrom<unknown>(5, null),
        version: fc.constantFrom<unknown>(0, -1, 1.5, null, 'one'),
        zz_unknown: unknownField,
      },
    },
    svc_list_prompts: {
      valid: fields({}, { search, limit: fc.integer({ min: 1, max: 100 }), cursor, ...budget }),
      breakers: {
        search: fc.constantFrom<unknown>('x'.repeat(1001), 5),
        limit: limitBreakers(100),
        ...budgetBreakers,
        zz_unknown: unknownField,
      },
    },
    svc_get_prompt: {
      valid: fields(
        { slug: fc.constantFrom(...fx.prompts) },
        {
          variables: fc.dictionary(
            fc.constantFrom('name', 'topic', 'x'),
            fc.oneof(validText(50), fc.integer(), fc.boolean()),
          ),
        },
      ),
      breakers: {
        slug: fc.constantFrom<unknown>(5, null, []),
        variables: fc.constantFrom<unknown>('x', [], 5),
        'variables.name': fc.constantFrom<unknown>({}, null, []),
        zz_unknown: unknownField,
      },
    },
    svc_list_artifacts: {
      valid: fields(
        {},
        {
          project: validProject,
          search,
          labels: fc.oneof(fc.constant('a,b'), validLabels),
          limit: fc.integer({ min: 1, max: 100 }),
          cursor,
          ...budget,
        },
      ),
      breakers: {
        project: projectBreakers,
        search: fc.constantFrom<unknown>('x'.repeat(1001), 5),
        labels: fc.constantFrom<unknown>([5], manyDistinct(11), ['x'.repeat(51)]),
        limit: limitBreakers(100),
        ...budgetBreakers,
        zz_unknown: unknownField,
      },
    },
    svc_get_artifact: {
      valid: fc
        .tuple(
          fc.constantFrom(...fx.artifacts),
          fields({}, { offset: fc.nat(1000), length: fc.integer({ min: 1, max: 1000 }) }),
        )
        .map(([a, rest]) => ({ ...a, ...rest })),
      breakers: {
        project: fc.constantFrom<unknown>(5, null),
        slug: fc.constantFrom<unknown>(5, null),
        offset: fc.constantFrom<unknown>(-1, 'x', 1.5),
        length: fc.constantFrom<unknown>(0, -1, 'x', 10 * 1024 * 1024 + 1),
        zz_unknown: unknownField,
      },
    },
    svc_save_artifact: {
      valid: fields(
        { project: validProject, title: validText(200), content: fc.string({ maxLength: 300 }) },
        { slug: validSlug, content_type: validMime, description: validText(500), labels: validLabels },
      ),
      breakers: {
        project: projectBreakers,
        slug: slugBreakers,
        title: fc.constantFrom<unknown>('', '   ', 'x'.repeat(201), 5),
        content: fc.constantFrom<unknown>(5, null),
        content_type: contentTypeBreakers,
        description: fc.constantFrom<unknown>('x'.repeat(501), 5),
        labels: toolLabelBreakers,
        zz_unknown: unknownField,
      },
    },
  };
}

type Generation = 'legacy' | 'modern' | 'none';

/** 2026-07-28 requests repeat the method (and the tool/prompt name or resource URI) in headers. */
const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
export function modernHeaders(method: string, params: unknown): Record<string, string> {
  // Header values are bytes on the wire: a method name outside printable ASCII cannot be repeated there.
  const headers: Record<string, string> = /^[\x20-\x7e]*$/.test(method) ? { 'mcp-method': method } : {};
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const value =
    field && typeof params === 'object' && params !== null ? (params as Record<string, unknown>)[field] : undefined;
  if (typeof value === 'string') headers['mcp-name'] = `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
  return headers;
}

/** One JSON-RPC message and what its answer must show. */
interface Rpc {
  method: string;
  params?: unknown;
  brokenArgs?: string[];
  expectError?: number;
  spec: string;
}

function mcpRequest(creds: Credentials, message: fc.Arbitrary<Rpc>, spec: string): fc.Arbitrary<FuzzRequest> {
  const generation = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom<[Generation, string]>(
        ['legacy', '2025-11-25'],
        ['legacy', '2025-06-18'],
        ['legacy', '2025-03-26'],
      ),
    },
    { weight: 4, arbitrary: fc.constant<[Generation, string]>(['modern', '2026-07-28']) },
    { weight: 1, arbitrary: fc.constant<[Generation, string]>(['none', '']) },
  );
  const id = fc.oneof(
    { weight: 10, arbitrary: fc.integer({ min: 1, max: 1e6 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('x', 0, -1, 2 ** 53 + 2, 'a'.repeat(10_000)) },
  );
  return fc
    .tuple(message, generation, id, fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 1))
    .map(([rpc, [gen, version], rpcId, badAuth]) => {
      let params = rpc.params;
      if (gen === 'modern') {
        const base =
          typeof params === 'object' && params !== null && !Array.isArray(params)
            ? params
            : params === undefined
              ? {}
              : undefined;
        if (base) params = { ...base, _meta: { ...((base as { _meta?: object })._meta ?? {}), ...MODERN_META } };
      }
      const body = { jsonrpc: '2.0', id: rpcId, method: rpc.method, ...(params !== undefined && { params }) };
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${badAuth ? creds.key /* a key without mcp_server */ : creds.mcpKey}`,
        ...(version && { 'mcp-protocol-version': version }),
      };
      if (gen === 'modern') Object.assign(headers, modernHeaders(rpc.method, params));
      const checkable = !badAuth && Number.isSafeInteger(rpcId) && (rpcId as number) > 0;
      return {
        spec,
        method: 'POST' as const,
        url: '/mcp/v1/common',
        headers,
        payload: json(body),
        ...(checkable &&
          (rpc.brokenArgs || rpc.expectError) && {
            mcp: {
              ...(rpc.brokenArgs && { brokenArgs: rpc.brokenArgs }),
              ...(rpc.expectError && { expectError: rpc.expectError }),
            },
          }),
      };
    });
}

function mcpSpecs(creds: Credentials, fx: Fixtures, toolNames: string[]): { specs: Spec[]; missing: string[] } {
  const args = toolArgs(fx);
  const specs: Spec[] = [];
  const missing = toolNames.filter((name) => !args[name]);
  for (const [name, spec] of Object.entries(args)) {
    const key = `MCP tools/call ${name}`;
    const message = bodyArbitrary(spec.valid, spec.breakers).map(
      (a): Rpc => ({
        spec: key,
        method: 'tools/call',
        params: a.raw !== undefined ? { name, arguments: a.raw } : { name, arguments: a.value },
        ...(a.broken && { brokenArgs: a.broken }),
      }),
    );
    specs.push({ key, arbitrary: mcpRequest(creds, message, key) });
  }
  const other = (method: string, params: fc.Arbitrary<Rpc>, weight = 1) =>
    specs.push({ key: `MCP ${method}`, weight, arbitrary: mcpRequest(creds, params, `MCP ${method}`) });
  other(
    'prompts/get',
    fc.oneof(
      fc
        .tuple(
          fc.oneof(fc.constantFrom(...fx.prompts), hostileString),
          fc.dictionary(
            fc.oneof(fc.constantFrom('name', 'topic'), hostileString),
            fc.oneof(hostileString, validText(20)),
            { maxKeys: 3 },
          ),
        )
        .map(([name, a]): Rpc => ({ spec: 'MCP prompts/get', method: 'prompts/get', params: { name, arguments: a } })),
      // A required argument left out is invalid params (-32602), as REST render refuses it.
      fc.constant<Rpc>({
        spec: 'MCP prompts/get',
        method: 'prompts/get',
        params: { name: fx.promptWithRequiredVariable, arguments: {} },
        expectError: -32602,
      }),
      hostileValue.map(
        (p): Rpc => ({ spec: 'MCP prompts/get', method: 'prompts/get', params: { name: p, arguments: p } }),
      ),
    ),
    2,
  );
  const uri = fc.oneof(
    fc.constantFrom(...fx.artifacts).map((a) => `artifact://${a.project}/${a.slug}`),
    fc.constantFrom(
      'artifact://',
      'artifact:///',
      'artifact://a/',
      'artifact://%ZZ/x',
      'artifact://../../etc/passwd',
      'artifact://a/..%2F..%2Fx',
      'file:///etc/passwd',
      'http://169.254.169.254/',
      `artifact://${'a/'.repeat(5000)}x`,
    ),
    hostileString.map((s) => `artifact://${s}`),
    hostileString,
  );
  other(
    'resources/read',
    fc.oneof(
      uri.map((u): Rpc => ({ spec: 'MCP resources/read', method: 'resources/read', params: { uri: u } })),
      hostileValue.map((p): Rpc => ({ spec: 'MCP resources/read', method: 'resources/read', params: { uri: p } })),
    ),
    2,
  );
  const cursor = fc.option(fc.oneof(fc.constantFrom('0', '100', '999999999', '-1', '1e3', 'x'), hostileString), {
    nil: undefined,
  });
  for (const method of ['prompts/list', 'resources/list']) {
    other(
      method,
      cursor.map((c): Rpc => ({ spec: `MCP ${method}`, method, params: c === undefined ? {} : { cursor: c } })),
      0.5,
    );
  }
  for (const method of ['tools/list', 'resources/templates/list', 'ping']) {
    other(method, fc.constant<Rpc>({ spec: `MCP ${method}`, method }), 0.3);
  }
  other(
    'hostile',
    fc
      .tuple(
        fc.oneof(
          hostileString,
          fc.constantFrom(
            'tools/call',
            'initialize',
            'notifications/initialized',
            'completion/complete',
            'logging/setLevel',
            'server/discover',
            'rpc.discover',
          ),
        ),
        hostileValue,
      )
      .map(([method, params]): Rpc => ({ spec: 'MCP hostile', method, params })),
  );
  // Raw envelopes: batches, broken JSON-RPC, non-objects.
  specs.push({
    key: 'MCP raw',
    arbitrary: fc
      .oneof(
        fc
          .array(
            fc.constantFrom(
              { jsonrpc: '2.0', id: 1, method: 'ping' },
              { jsonrpc: '2.0', id: 2, method: 'tools/list' },
              { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'svc_list_prompts', arguments: {} } },
              { jsonrpc: '2.0', method: 'notifications/initialized' },
            ),
            { minLength: 1, maxLength: 50 },
          )
          .map(json),
        rawHostileBody,
        hostileValue.map(json),
        fc.constantFrom(
          json({ jsonrpc: '1.0', id: 1, method: 'ping' }),
          json({ id: 1, method: 'ping' }),
          json({ jsonrpc: '2.0', id: {}, method: 'ping' }),
          json([]),
        ),
      )
      .chain((payload) =>
        fc.constantFrom('2025-03-26', '2025-11-25', '2026-07-28', '').map((version) => ({
          spec: 'MCP raw',
          method: 'POST' as const,
          url: '/mcp/v1/common',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${creds.mcpKey}`,
            ...(version && { 'mcp-protocol-version': version }),
          },
          payload,
        })),
      ),
  });
  return { specs, missing };
}

/** Every generator of the run, keyed by `METHOD /route` (HTTP) or `MCP …`. */
export function allSpecs(options: {
  creds: Credentials;
  rest: Fixtures;
  dashboard: Fixtures;
  dash: DashboardFixtures;
  adminEmail: string;
  bundle: string[];
  toolNames: string[];
}): { specs: Spec[]; missingTools: string[] } {
  const mcp = mcpSpecs(options.creds, options.rest, options.toolNames);
  return {
    specs: [
      ...contentSpecs('rest', '/api/v1', options.rest, options.creds),
      ...restOnlySpecs(options.creds, options.bundle),
      ...contentSpecs('dashboard', '/dashboard/api', options.dashboard, options.creds),
      ...dashboardSpecs(options.creds, options.dash, options.adminEmail),
      ...publicSpecs(),
      ...mcp.specs,
    ],
    missingTools: mcp.missing,
  };
}
