import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { mcError, routeManyChat } from './manychat.js';
import { graphError, routeMessenger } from './messenger.js';
import { FixtureError, type SandboxState, type SubscriberState } from './state.js';
import {
  ReplyError,
  type Api,
  type ApiRequest,
  type CallFilter,
  type FaultKind,
  type FaultSpec,
  type Reply,
  type SandboxSubscriber,
} from './types.js';

/** The sandbox's HTTP surface: `/__sandbox/*` control routes, everything else goes through the recorded API pipeline. */

export interface AppDeps {
  state: SandboxState;
  enforceRateLimits: boolean;
  /** Aborts when the sandbox closes, releasing hung calls. */
  closing: AbortSignal;
}

const MAX_BODY = 1024 * 1024;

function parseJson(text: string): ApiRequest['json'] {
  if (text.trim() === '') return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'malformed';
  }
}

/** Query for the record; access tokens are secrets even in a sandbox, so they are redacted. */
function recordedQuery(query: URLSearchParams): Record<string, string> | undefined {
  const entries = [...query.entries()].map(([k, v]): [string, string] => [k, k === 'access_token' ? '[redacted]' : v]);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

const FAULT_WORDS: Record<Exclude<FaultKind, 'hang' | 'slow'>, string> = {
  '429': 'Too many requests',
  '500': 'Internal server error',
  '502': 'Bad gateway',
  '503': 'Service unavailable',
  '504': 'Gateway timeout',
};

function faultReply(api: Api, fault: FaultSpec & { kind: keyof typeof FAULT_WORDS }): Reply {
  const status = Number(fault.kind);
  const headers =
    fault.retryAfterSeconds !== undefined && (status === 429 || status === 503)
      ? { 'Retry-After': String(fault.retryAfterSeconds) }
      : undefined;
  const reply =
    api === 'manychat'
      ? mcError(status, `${FAULT_WORDS[fault.kind]} (injected fault)`)
      : status === 429
        ? graphError(429, '(#4) Application request limit reached (injected fault)', 4, { is_transient: true })
        : graphError(
            status,
            `An unexpected error has occurred. Please retry your request later. (${FAULT_WORDS[fault.kind]}, injected fault)`,
            2,
            { is_transient: true },
          );
  return headers ? { ...reply, headers } : reply;
}

/** Waits `ms`, or less if the client goes away or the sandbox closes. */
function pause(ms: number, ...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const any = AbortSignal.any(signals);
    const timer = setTimeout(resolve, ms);
    any.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function notFound(req: ApiRequest): Routed404 {
  const what = `No route for ${req.method} ${req.path}`;
  return req.path.startsWith('/fb/')
    ? { api: 'manychat', reply: mcError(404, what) }
    : { api: 'messenger', reply: graphError(404, `Unknown path components: ${req.path}`, 2500) };
}
interface Routed404 {
  api: Api;
  reply: Reply;
}

/** Resolves once the client goes away or the sandbox closes; a hung call never gets an answer. */
function hang(...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const any = AbortSignal.any(signals);
    if (any.aborted) resolve();
    else any.addEventListener('abort', () => resolve(), { once: true });
  });
}

function run(routed: { run(): Reply }): Reply {
  try {
    return routed.run();
  } catch (err) {
    if (err instanceof ReplyError) return err.reply;
    throw err;
  }
}

async function apiCall(c: Context, deps: AppDeps): Promise<Response> {
  const url = new URL(c.req.url);
  const text = await c.req.text();
  const req: ApiRequest = {
    method: c.req.method,
    path: url.pathname,
    query: url.searchParams,
    headers: c.req.raw.headers,
    text,
    json: parseJson(text),
  };
  const routed = routeManyChat(req, deps.state, deps.enforceRateLimits) ?? routeMessenger(req, deps.state);
  const missing = routed ? undefined : notFound(req);
  const api = routed?.api ?? missing?.api ?? 'manychat';
  const body = req.json === undefined ? null : req.json === 'malformed' ? text : req.json.value;
  const rec = deps.state.record({
    api,
    method: req.method,
    path: req.path,
    query: recordedQuery(req.query),
    pageId: routed?.pageId,
    body,
    status: 0,
    outcome: 'error',
    response: null,
  });
  const fault = routed ? deps.state.takeFault(req.path, routed.pageId) : undefined;
  if (fault) rec.outcome = 'fault';
  if (fault?.kind === 'hang') {
    await hang(c.req.raw.signal, deps.closing);
    return new Response(null, { status: 503 }); // nobody is listening any more; never recorded as answered
  }
  // A slow ManyChat still performs the call: the answer just comes late (or to nobody).
  if (fault?.kind === 'slow') await pause(fault.delayMs ?? 3000, c.req.raw.signal, deps.closing);
  const failing = fault && fault.kind !== 'slow' ? fault : undefined;
  const reply = failing
    ? faultReply(api, failing as FaultSpec & { kind: keyof typeof FAULT_WORDS })
    : routed
      ? run(routed)
      : missing!.reply;
  rec.status = reply.status;
  rec.response = structuredClone(reply.body);
  if (!failing) rec.outcome = reply.status < 400 ? 'ok' : 'error';
  return c.json(reply.body, reply.status as 200, reply.headers);
}

// ---- control routes ----
async function jsonBody(c: Context): Promise<{ ok: true; value: unknown } | { ok: false; res: Response }> {
  const parsed = parseJson(await c.req.text());
  if (parsed === 'malformed') return { ok: false, res: c.json({ error: 'malformed JSON body' }, 400) };
  return { ok: true, value: parsed?.value };
}
function fixtureRoute<T>(add: (input: unknown) => T, view: (t: T) => unknown) {
  return async (c: Context) => {
    const body = await jsonBody(c);
    if (!body.ok) return body.res;
    try {
      return c.json({ ok: true, ...(view(add(body.value)) as object) }, 201);
    } catch (err) {
      if (err instanceof FixtureError) return c.json({ error: 'invalid body', issues: err.issues }, 400);
      throw err;
    }
  };
}

function callFilter(q: URLSearchParams): CallFilter | string {
  const since = q.get('since');
  const api = q.get('api');
  if (since !== null && !/^\d+$/.test(since)) return 'since must be a non-negative integer (a seq)';
  if (api !== null && api !== 'manychat' && api !== 'messenger') return 'api must be manychat or messenger';
  return {
    pageId: q.get('pageId') ?? undefined,
    path: q.get('path') ?? undefined,
    api: api ?? undefined,
    since: since === null ? undefined : Number(since),
  };
}

/** Friendly snapshot: tag names and fields by name, as in the fixture format. */
export function subscriberView(state: SandboxState, sub: SubscriberState): SandboxSubscriber {
  const page = state.pages.get(sub.pageId);
  const tags = page?.tags.filter((t) => sub.tagIds.has(t.id)).map((t) => t.name) ?? [];
  const customFields = Object.fromEntries(
    page?.customFields.filter((f) => sub.fields.has(f.id)).map((f) => [f.name, sub.fields.get(f.id)]) ?? [],
  );
  return {
    pageId: sub.pageId,
    id: sub.id,
    firstName: sub.firstName,
    lastName: sub.lastName,
    lastInteraction: sub.lastInteraction,
    customFields,
    tags,
  };
}

export function createSandboxApp(deps: AppDeps): Hono {
  const { state } = deps;
  const app = new Hono();
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) => c.json({ status: 'error', message: `body over ${MAX_BODY} bytes` }, 413),
    }),
  );
  app.get('/__sandbox/calls', (c) => {
    const filter = callFilter(new URL(c.req.url).searchParams);
    return typeof filter === 'string' ? c.json({ error: filter }, 400) : c.json({ calls: state.listCalls(filter) });
  });
  app.post('/__sandbox/reset', (c) => {
    state.reset();
    return c.json({ ok: true });
  });
  app.get('/__sandbox/faults', (c) => c.json({ faults: state.pendingFaults() }));
  app.post(
    '/__sandbox/faults',
    fixtureRoute(
      (v) => state.addFault(v),
      (fault) => ({ fault }),
    ),
  );
  app.post(
    '/__sandbox/pages',
    fixtureRoute(
      (v) => state.addPage(v),
      (p) => ({ pageId: p.pageId }),
    ),
  );
  app.post(
    '/__sandbox/messenger-pages',
    fixtureRoute(
      (v) => state.addMessengerPage(v),
      (p) => ({ pageId: p.pageId }),
    ),
  );
  app.post(
    '/__sandbox/subscribers',
    fixtureRoute(
      (v) => state.addSubscriber(v),
      (s) => ({ subscriber: subscriberView(state, s) }),
    ),
  );
  app.get('/__sandbox/subscribers/:pageId/:id', (c) => {
    const sub = state.subscriber(c.req.param('pageId'), c.req.param('id'));
    return sub ? c.json({ subscriber: subscriberView(state, sub) }) : c.json({ error: 'unknown subscriber' }, 404);
  });
  app.post('/__sandbox/subscribers/:pageId/:id/interaction', (c) => {
    const sub = state.touch(c.req.param('pageId'), c.req.param('id'));
    return sub ? c.json({ subscriber: subscriberView(state, sub) }) : c.json({ error: 'unknown subscriber' }, 404);
  });
  app.all('/__sandbox/*', (c) => c.json({ error: `no sandbox control route ${c.req.method} ${c.req.path}` }, 404));
  app.all('*', (c) => apiCall(c, deps));
  // Last line of "never crash": any bug answers 500 JSON instead of taking the server down.
  app.onError((err, c) =>
    c.json(
      { status: 'error', message: `sandbox internal error: ${err instanceof Error ? err.message : String(err)}` },
      500,
    ),
  );
  return app;
}
