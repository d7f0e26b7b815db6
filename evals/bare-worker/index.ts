import { createOpenAI } from '@ai-sdk/openai';
import { Client as QStash } from '@upstash/qstash';
import { Redis } from '@upstash/redis/cloudflare';
import { generateText, stepCountIs, tool } from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';

/**
 * The benchmark's floors, on the same workerd (wrangler dev), same route shape and body as the
 * ManyChat webhook. `npm run bench` runs them beside the real Worker.
 *
 * - `POST /v1/manychat/:tenant`: a bare Hono handler. It parses the JSON body and answers a fixed
 *   Dynamic Block, doing no auth, no Redis, no model, no commit.
 * - `POST /v1/io-floor/:tenant`: the same, plus the subrequests a no-tool turn makes, with no logic
 *   around them: one Redis pipeline before the model (six commands), one model call (a Chat
 *   Completions body the size of the Worker's), one Redis transaction after. Its CPU is what the
 *   runtime spends carrying a turn's HTTP; the Worker's CPU above it is the product's own code.
 *   With `?log=1` it also writes one line the shape and size of the Worker's turn log
 *   (src/observability/turn-log.ts): under `wrangler dev` every console line crosses to wrangler's
 *   process, and the bench prints what that one line costs workerd. With `?publish=1` it also makes
 *   a staging turn's QStash publish with `fetch`: the I/O floor of a staging turn (its same
 *   subrequests), which `npm run bench:miniflare` sets the staging turn against.
 * - `POST /v1/library-floor/:tenant`: the same turn's I/O made through the libraries the product
 *   is built on (fixed by the product, not chosen per turn): a new `@upstash/redis` client per
 *   request with the Worker's options, one pipeline, one AI SDK `generateText` step through
 *   `@ai-sdk/openai` (Chat Completions, a `reply` tool with a zod schema the model must call, as the
 *   Worker's loop ends), one MULTI; no log line. Its CPU above the I/O floor is what those
 *   libraries cost a turn; the Worker's CPU above it is the product's own code. With `?publish=1`
 *   it also publishes one JSON message through `@upstash/qstash` (one client per isolate, as
 *   outbox/qstash-client.ts keeps it), as a staging turn's commit does: the floor for staging turns.
 */
interface FloorEnv {
  UPSTASH_URL?: string;
  UPSTASH_TOKEN?: string;
  MODEL_URL?: string;
  /** For the floors' `?publish=1` (a staging turn's QStash publish). */
  QSTASH_URL?: string;
  QSTASH_TOKEN?: string;
}
const app = new Hono<{ Bindings: FloorEnv }>();

const dynamicBlock = (text: string) => ({
  version: 'v2',
  content: { messages: [{ type: 'text', text }], actions: [], quick_replies: [] },
});

app.post('/v1/manychat/:tenant', async (c) => {
  const body = (await c.req.json()) as { contact?: { id?: string }; text?: string };
  c.header('x-turn-id', `bare_${body.contact?.id ?? 'x'}`);
  return c.json(dynamicBlock(body.text ? 'Hello!' : 'Hi!'));
});

/** About the bytes of the Worker's model request for the demo tenant (prompt, tool list, history). */
const PROMPT = 'You are the assistant of a small business. '.repeat(200);

app.post('/v1/io-floor/:tenant', async (c) => {
  const { UPSTASH_URL, UPSTASH_TOKEN, MODEL_URL } = c.env;
  if (!UPSTASH_URL || !UPSTASH_TOKEN || !MODEL_URL)
    return c.json({ error: 'UPSTASH_URL, UPSTASH_TOKEN and MODEL_URL must be set' }, 500);
  const body = (await c.req.json()) as { contact?: { id?: string }; text?: string };
  const id = body.contact?.id ?? 'x';
  const redis = (path: string, commands: string[][]) =>
    fetch(`${UPSTASH_URL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${UPSTASH_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(commands),
    }).then((r) => r.json());
  await redis('/pipeline', [
    ['SET', `floor:seen:${id}`, '1', 'NX', 'EX', '60'],
    ['GET', `floor:a:${id}`],
    ['GET', `floor:b:${id}`],
    ['GET', `floor:c:${id}`],
    ['LRANGE', `floor:h:${id}`, '0', '-1'],
    ['GET', 'floor:rev'],
  ]);
  const model = await fetch(`${MODEL_URL}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: PROMPT },
        { role: 'user', content: body.text ?? '' },
      ],
      tools: [],
      safety_identifier: id,
    }),
  }).then((r) => r.json());
  await redis('/multi-exec', [
    ['SET', `floor:turn:${id}`, JSON.stringify(model), 'EX', '60'],
    ['DEL', `floor:seen:${id}`],
  ]);
  if (c.req.query('log') === '1')
    console.log(
      JSON.stringify({
        event: 'turn',
        turnId: `turn_floor_${id}`,
        tenantId: c.req.param('tenant'),
        decision: 'pass',
        guardrail: null,
        deferred: false,
        latencyMs: 3,
        modelMs: 2,
        guardrailsMs: 0,
        commitMs: 1,
        modelCalls: 1,
        modelId: 'gpt-4.1-mini',
        redisRoundTrips: { beforeModel: 1, afterModel: 1 },
        staged: 0,
        committed: 0,
        pendingConfirmation: false,
        approvals: 0,
        written: true,
      }),
    );
  if (c.req.query('publish') === '1') {
    // A staging turn's fourth subrequest, raw: the publish @upstash/qstash makes (the same
    // endpoint, headers and body), without the library.
    const { QSTASH_URL, QSTASH_TOKEN } = c.env;
    if (!QSTASH_URL || !QSTASH_TOKEN) return c.json({ error: 'QSTASH_URL and QSTASH_TOKEN must be set' }, 500);
    const published = await fetch(`${QSTASH_URL}/v2/publish/http://127.0.0.1:9/v1/outbox/deliver`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${QSTASH_TOKEN}`,
        'content-type': 'application/json',
        'upstash-deduplication-id': `deliver-floor-${id}`,
        'upstash-label': `tenant-${c.req.param('tenant')}`,
        'upstash-retries': '5',
        'upstash-method': 'POST',
      },
      body: JSON.stringify({ tenantId: c.req.param('tenant'), turnId: `floor_${id}` }),
    });
    if (!published.ok) return c.json({ error: `publish: ${published.status}` }, 502);
    await published.text();
  }
  c.header('x-turn-id', `floor_${id}`);
  return c.json(dynamicBlock('Hello!'));
});

const ReplySchema = z.object({
  text: z.string(),
  escalate: z.boolean(),
  confidence: z.number(),
  reason: z.string(),
});
const providers = new Map<string, ReturnType<typeof createOpenAI>>();
let qstash: QStash | undefined;

app.post('/v1/library-floor/:tenant', async (c) => {
  const { UPSTASH_URL, UPSTASH_TOKEN, MODEL_URL } = c.env;
  if (!UPSTASH_URL || !UPSTASH_TOKEN || !MODEL_URL)
    return c.json({ error: 'UPSTASH_URL, UPSTASH_TOKEN and MODEL_URL must be set' }, 500);
  const body = (await c.req.json()) as { contact?: { id?: string }; text?: string };
  const id = body.contact?.id ?? 'x';
  // As core/storage/redis-session.ts builds it, a new client each request.
  const redis = new Redis({
    url: UPSTASH_URL,
    token: UPSTASH_TOKEN,
    enableAutoPipelining: false,
    automaticDeserialization: false,
    enableTelemetry: false,
    readYourWrites: false,
    responseEncoding: false,
    retry: { retries: 1, backoff: () => 50 },
    signal: () => AbortSignal.timeout(2000),
  });
  const before = redis.pipeline();
  before.set(`floor:seen:${id}`, '1', { nx: true, ex: 60 });
  before.get(`floor:a:${id}`);
  before.get(`floor:b:${id}`);
  before.get(`floor:c:${id}`);
  before.lrange(`floor:h:${id}`, 0, -1);
  before.get('floor:rev');
  await before.exec();
  // One provider per isolate, as src/models/select-model.ts keeps it.
  let provider = providers.get(MODEL_URL);
  if (!provider) {
    provider = createOpenAI({ apiKey: 'sandbox', baseURL: `${MODEL_URL}/v1` });
    providers.set(MODEL_URL, provider);
  }
  const result = await generateText({
    model: provider.chat('gpt-4.1-mini'),
    system: PROMPT,
    prompt: body.text ?? '',
    tools: { reply: tool({ description: 'Your answer to the contact.', inputSchema: ReplySchema }) },
    toolChoice: 'required',
    stopWhen: stepCountIs(1),
    providerOptions: { openai: { safetyIdentifier: id } },
    // As the product calls it (src/turn/model-loop.ts): the floor is the libraries' least cost.
    telemetry: { isEnabled: false },
  });
  const reply = result.toolCalls.find((call) => call.toolName === 'reply');
  const after = redis.multi();
  after.set(`floor:turn:${id}`, JSON.stringify(result.response.messages), { ex: 60 });
  after.del(`floor:seen:${id}`);
  await after.exec();
  if (c.req.query('publish') === '1') {
    const { QSTASH_URL, QSTASH_TOKEN } = c.env;
    if (!QSTASH_URL || !QSTASH_TOKEN) return c.json({ error: 'QSTASH_URL and QSTASH_TOKEN must be set' }, 500);
    qstash ??= new QStash({ baseUrl: QSTASH_URL, token: QSTASH_TOKEN });
    await qstash.publishJSON({
      url: 'http://127.0.0.1:9/v1/outbox/deliver',
      body: { tenantId: c.req.param('tenant'), turnId: `floor_${id}` },
      deduplicationId: `deliver-floor-${id}`,
      label: `tenant-${c.req.param('tenant')}`,
      retries: 5,
    });
  }
  c.header('x-turn-id', `library_floor_${id}`);
  return c.json(dynamicBlock(reply ? String((reply.input as { text?: unknown }).text ?? 'Hello!') : 'Hello!'));
});

app.get('/v1/health', (c) => c.json({ ok: true, bare: true }));

export default app;
