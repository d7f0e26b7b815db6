import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { HEDGE_HEADER } from '../src/models/hedged-model.js';

/**
 * A local, scripted stand-in for an OpenAI-compatible **Chat Completions** server, so the Worker's
 * real provider (`createOpenAI({ baseURL }).chat(id)`, `OPENAI_API_MODE=chat`) can be driven end to
 * end without a network. Evals and benchmarks point `OPENAI_BASE_URL` at `${url}/v1`.
 *
 * - `POST /v1/chat/completions` (also `/chat/completions`): non-streaming JSON, or SSE when the
 *   request says `stream: true` (`data: {chunk}` … `data: [DONE]`, usage in a last chunk with
 *   `choices: []`, as OpenAI sends it with `stream_options.include_usage`).
 * - Scripts are registered per **safety identifier** (the request's `safety_identifier`, falling
 *   back to `user`): `POST /__model/scripts { safetyIdentifier, steps, mode?, loop? }`. Every model
 *   call pops the next step of its identifier's script. `safetyIdentifier: "*"` registers the
 *   default script, used by identifiers that have no step left; `loop: true` replays a script
 *   forever (benchmarks). `mode: "append"` adds to a script instead of replacing it.
 * - A call with no step left and no default script answers one tool call of `reply` with
 *   confidence 0.1 and `escalate: false` (see `UNSCRIPTED_REPLY`): a product with a confidence
 *   guardrail escalates it, so a script that is too short shows up as an escalation, never as a
 *   plausible answer.
 * - A step may wait (`latencyMs`; with streaming, `ttftMs` before the first chunk and the rest
 *   spread over the chunks), fail (`error: { status, message }` in OpenAI's error shape), answer
 *   tool calls (`calls`, `reply` = shorthand for a final `reply` call) or plain text (`text`).
 *   A client that disconnects stops the wait at once; the call is recorded as `aborted`.
 * - A hedge (header `x-staged-agent-hedge: 1`: the same request sent again by a hedged model) gets
 *   the step its identifier was served last, after `hedgeLatencyMs` (default: the step's latencyMs).
 * - Every request is recorded (`GET /__model/calls?safetyIdentifier=&since=`), with the step it got
 *   and how long it was served. `POST /__model/reset` clears scripts and calls.
 *
 * Tool call ids are `call_<seq>_<i>`; finish_reason is `tool_calls` when there are tool calls,
 * else `stop`. Usage is estimated (4 characters a token) unless the step gives `usage`.
 */

export const ToolCallSpecSchema = z
  .object({
    tool: z.string().min(1),
    /** Serialised with JSON.stringify as the call's `arguments`. */
    input: z.unknown().optional(),
    /** Raw `arguments` text instead of `input` (e.g. malformed JSON). */
    arguments: z.string().optional(),
  })
  .strict();

export const ScriptStepSchema = z
  .object({
    calls: z.array(ToolCallSpecSchema).optional(),
    /** Shorthand for a last tool call of `reply` with this input (sent as given). */
    reply: z.unknown().optional(),
    /** Plain assistant text (finish_reason `stop` when there are no tool calls). */
    text: z.string().optional(),
    /** Total time before the answer is complete. */
    latencyMs: z.number().min(0).max(600_000).optional(),
    /** A hedge of this step (the same request sent again, marked by the hedge header) takes this long instead. */
    hedgeLatencyMs: z.number().min(0).max(600_000).optional(),
    /** Streaming only: time to the first chunk (default: all of latencyMs). */
    ttftMs: z.number().min(0).max(600_000).optional(),
    error: z
      .object({
        status: z.number().int().min(400).max(599),
        message: z.string(),
        type: z.string().optional(),
        code: z.string().optional(),
      })
      .strict()
      .optional(),
    usage: z
      .object({
        promptTokens: z.number().int().min(0).optional(),
        completionTokens: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type ToolCallSpec = z.infer<typeof ToolCallSpecSchema>;
export type ScriptStep = z.infer<typeof ScriptStepSchema>;

export const ScriptRegistrationSchema = z
  .object({
    safetyIdentifier: z.string().min(1).max(128),
    steps: z.array(ScriptStepSchema),
    mode: z.enum(['replace', 'append']).default('replace'),
    loop: z.boolean().default(false),
  })
  .strict();
export type ScriptRegistration = z.input<typeof ScriptRegistrationSchema>;

/** What a call with nothing scripted gets: a reply a confidence guardrail will not let through. */
export const UNSCRIPTED_REPLY = {
  text: 'Sorry, I am not sure how to help with that.',
  escalate: false,
  confidence: 0.1,
  reason: 'model sandbox: no scripted step left for this safety identifier',
} as const;

export interface RecordedModelCall {
  seq: number;
  at: string;
  path: string;
  model: string | null;
  stream: boolean;
  safetyIdentifier: string | null;
  /** Where the step came from. */
  source: 'script' | 'default' | 'unscripted' | 'invalid-request';
  /** Index of the step within its script (loop scripts count on). */
  stepIndex: number | null;
  step: ScriptStep | null;
  /** The second request of a hedged pair: it got the same step as the request it hedges. */
  hedge: boolean;
  /** HTTP status sent (0 when the client left before the answer). */
  status: number;
  aborted: boolean;
  /** From the request's arrival to the last byte sent (or the disconnect). */
  servedMs: number;
  toolNames: string[];
  toolChoice: unknown;
  messageCount: number;
  /** The whole request body as parsed JSON. */
  request: Record<string, unknown> | null;
}

export interface ModelCallFilter {
  safetyIdentifier?: string;
  /** Only calls with seq greater than this. */
  since?: number;
}

export interface ModelSandboxOptions {
  port?: number;
  host?: string;
  /** Keep at most this many recorded calls (oldest dropped). Default 20 000. */
  maxRecorded?: number;
  /** Record request bodies (default true; benchmarks turn it off). */
  recordBodies?: boolean;
}

export interface ModelSandbox {
  url: string;
  /** `${url}/v1`, what OPENAI_BASE_URL should be. */
  baseURL: string;
  port: number;
  script(registration: ScriptRegistration): void;
  calls(filter?: ModelCallFilter): RecordedModelCall[];
  /** Steps still waiting for an identifier. */
  pending(safetyIdentifier: string): number;
  reset(): void;
  close(): Promise<void>;
}

/** The identifier the Worker sends: first 32 hex chars of SHA-256 of `${tenantId}:${contactId}`. */
export function safetyIdentifierFor(tenantId: string, contactId: string): string {
  return createHash('sha256').update(`${tenantId}:${contactId}`).digest('hex').slice(0, 32);
}

interface Script {
  steps: ScriptStep[];
  next: number;
  loop: boolean;
}

class ModelSandboxState {
  private scripts = new Map<string, Script>();
  private recorded: RecordedModelCall[] = [];
  private seq = 0;
  /**
   * The step each identifier was served last, with the request body's digest and whether it was a
   * hedge: the other request of a hedged pair (same body) gets that step again, whichever arrives
   * first. A digest, not the body: a scale run keeps one entry per contact (100,000 and more).
   */
  private lastServed = new Map<
    string,
    {
      step: ScriptStep;
      index: number | null;
      source: RecordedModelCall['source'];
      bodyDigest: string;
      hedge: boolean;
      paired: boolean;
    }
  >();

  constructor(private readonly maxRecorded: number) {}

  register(reg: z.infer<typeof ScriptRegistrationSchema>): void {
    const existing = this.scripts.get(reg.safetyIdentifier);
    if (reg.mode === 'append' && existing) {
      existing.steps.push(...reg.steps);
      existing.loop = reg.loop || existing.loop;
      return;
    }
    this.scripts.set(reg.safetyIdentifier, { steps: [...reg.steps], next: 0, loop: reg.loop });
  }

  private take(id: string): { step: ScriptStep; index: number } | null {
    const script = this.scripts.get(id);
    if (!script || !script.steps.length) return null;
    if (script.next >= script.steps.length && !script.loop) return null;
    const index = script.next++;
    return { step: script.steps[index % script.steps.length]!, index };
  }

  /** The step for one call: the identifier's script, else the default script, else the unscripted reply. */
  /**
   * The step for a request. A hedge is the same request again, so the two requests of a pair get
   * one step: a hedge whose body matches the last request served gets its step, and so does a
   * request arriving after its own hedge (under load a hedge can overtake the call it races).
   */
  serve(
    id: string | null,
    body: string,
    hedge: boolean,
  ): { step: ScriptStep; index: number | null; source: RecordedModelCall['source'] } {
    const last = id ? this.lastServed.get(id) : undefined;
    const bodyDigest = createHash('sha256').update(body).digest('base64');
    if (last && !last.paired && last.bodyDigest === bodyDigest && (hedge || last.hedge)) {
      last.paired = true;
      return last;
    }
    const served = this.pick(id);
    if (id) this.lastServed.set(id, { ...served, bodyDigest, hedge, paired: false });
    return served;
  }

  private pick(id: string | null): { step: ScriptStep; index: number | null; source: RecordedModelCall['source'] } {
    const own = id ? this.take(id) : null;
    if (own) return { ...own, source: 'script' };
    const fallback = this.take('*');
    if (fallback) return { ...fallback, source: 'default' };
    return { step: { reply: UNSCRIPTED_REPLY }, index: null, source: 'unscripted' };
  }

  pending(id: string): number {
    const s = this.scripts.get(id);
    if (!s) return 0;
    return s.loop ? Infinity : Math.max(0, s.steps.length - s.next);
  }

  record(call: Omit<RecordedModelCall, 'seq' | 'at'>): RecordedModelCall {
    const rec: RecordedModelCall = { seq: ++this.seq, at: new Date().toISOString(), ...call };
    this.recorded.push(rec);
    if (this.recorded.length > this.maxRecorded) this.recorded.splice(0, this.recorded.length - this.maxRecorded);
    return rec;
  }

  list(filter: ModelCallFilter = {}): RecordedModelCall[] {
    return this.recorded
      .filter(
        (c) =>
          (filter.since === undefined || c.seq > filter.since) &&
          (filter.safetyIdentifier === undefined || c.safetyIdentifier === filter.safetyIdentifier),
      )
      .map((c) => structuredClone(c));
  }

  reset(): void {
    this.scripts.clear();
    this.lastServed.clear();
    this.recorded = [];
  }
}

// ---- wire format -------------------------------------------------------------------------------

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function toolCallsOf(step: ScriptStep, seq: number): WireToolCall[] {
  const specs: ToolCallSpec[] = [
    ...(step.calls ?? []),
    ...(step.reply !== undefined ? [{ tool: 'reply', input: step.reply }] : []),
  ];
  return specs.map((c, i) => ({
    id: `call_${seq}_${i}`,
    type: 'function',
    function: { name: c.tool, arguments: c.arguments ?? JSON.stringify(c.input ?? {}) },
  }));
}

const approxTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function usageOf(step: ScriptStep, requestText: string, toolCalls: WireToolCall[]) {
  const prompt = step.usage?.promptTokens ?? approxTokens(requestText);
  const completion =
    step.usage?.completionTokens ??
    approxTokens((step.text ?? '') + toolCalls.map((t) => t.function.name + t.function.arguments).join(''));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function openAiError(status: number, message: string, type?: string, code?: string) {
  return {
    error: {
      message,
      type: type ?? (status >= 500 ? 'server_error' : status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error'),
      param: null,
      code: code ?? null,
    },
  };
}

/** Splits a string into n roughly equal pieces (at least one). */
function pieces(text: string, n: number): string[] {
  if (!text) return [''];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// ---- server -------------------------------------------------------------------------------------

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) reject(new Error(`body larger than ${limit} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Resolves after `ms`, or early with false when `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    if (ms <= 0) return resolve(true);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const MAX_BODY = 8 * 1024 * 1024;

export async function startModelSandbox(opts: ModelSandboxOptions = {}): Promise<ModelSandbox> {
  const state = new ModelSandboxState(opts.maxRecorded ?? 20_000);
  const recordBodies = opts.recordBodies ?? true;
  const closing = new AbortController();

  async function completions(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const started = performance.now();
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const signal = AbortSignal.any([gone.signal, closing.signal]);
    let text: string;
    try {
      text = await readBody(req, MAX_BODY);
    } catch (err) {
      return sendJson(res, 413, openAiError(413, err instanceof Error ? err.message : String(err)));
    }
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // handled below
    }
    const base = {
      path,
      model: typeof body?.model === 'string' ? body.model : null,
      stream: body?.stream === true,
      safetyIdentifier:
        typeof body?.safety_identifier === 'string'
          ? body.safety_identifier
          : typeof body?.user === 'string'
            ? body.user
            : null,
      toolNames: Array.isArray(body?.tools)
        ? (body.tools as { function?: { name?: string } }[]).map((t) => String(t?.function?.name ?? ''))
        : [],
      toolChoice: body?.tool_choice ?? null,
      messageCount: Array.isArray(body?.messages) ? body.messages.length : 0,
      request: recordBodies ? body : null,
    };
    if (!body || !Array.isArray(body.messages)) {
      const rec = state.record({
        ...base,
        source: 'invalid-request',
        stepIndex: null,
        step: null,
        hedge: false,
        status: 400,
        aborted: false,
        servedMs: 0,
      });
      sendJson(res, 400, openAiError(400, body ? '"messages" must be an array' : 'the body is not a JSON object'));
      rec.servedMs = Math.round(performance.now() - started);
      return;
    }
    const hedge = req.headers[HEDGE_HEADER] === '1';
    const { step, index, source } = state.serve(base.safetyIdentifier, text, hedge);
    const rec = state.record({
      ...base,
      source,
      stepIndex: index,
      step,
      hedge,
      status: 0,
      aborted: false,
      servedMs: 0,
    });
    const finish = (status: number, aborted: boolean) => {
      rec.status = aborted ? 0 : status;
      rec.aborted = aborted;
      rec.servedMs = Math.round(performance.now() - started);
    };
    const latency = (hedge ? step.hedgeLatencyMs : undefined) ?? step.latencyMs ?? 0;
    const id = `chatcmpl-sbx-${rec.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = base.model ?? 'sandbox-model';

    if (step.error) {
      if (!(await wait(latency, signal))) return finish(0, true);
      sendJson(
        res,
        step.error.status,
        openAiError(step.error.status, step.error.message, step.error.type, step.error.code),
      );
      return finish(step.error.status, false);
    }
    const toolCalls = toolCallsOf(step, rec.seq);
    const usage = usageOf(step, text, toolCalls);
    const finishReason = toolCalls.length ? 'tool_calls' : 'stop';

    if (!base.stream) {
      if (!(await wait(latency, signal))) return finish(0, true);
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: step.text ?? null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
              refusal: null,
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      return finish(200, false);
    }

    // Streaming: time to first chunk, then the remaining latency spread across the chunks.
    const ttft = Math.min(step.ttftMs ?? latency, latency);
    if (!(await wait(ttft, signal))) return finish(0, true);
    const chunk = (delta: Record<string, unknown> | null, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: delta || finish ? [{ index: 0, delta: delta ?? {}, logprobs: null, finish_reason: finish }] : [], ...extra })}\n\n`;
    const frames: string[] = [chunk({ role: 'assistant', content: step.text === undefined ? null : '' }, null)];
    if (step.text) for (const p of pieces(step.text, 4)) frames.push(chunk({ content: p }, null));
    toolCalls.forEach((call, i) => {
      frames.push(
        chunk(
          {
            tool_calls: [
              { index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
            ],
          },
          null,
        ),
      );
      for (const p of pieces(call.function.arguments, 3))
        frames.push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }, null));
    });
    frames.push(chunk({}, finishReason));
    frames.push(chunk(null, null, { usage }));
    frames.push('data: [DONE]\n\n');
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const gap = frames.length > 1 ? Math.max(0, latency - ttft) / (frames.length - 1) : 0;
    for (let i = 0; i < frames.length; i++) {
      if (i > 0 && gap > 0 && !(await wait(gap, signal))) {
        res.destroy();
        return finish(0, true);
      }
      if (signal.aborted) return finish(0, true);
      res.write(frames[i]);
    }
    res.end();
    finish(200, false);
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === 'POST' && url.pathname === '/__model/scripts') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readBody(req, MAX_BODY));
      } catch {
        return sendJson(res, 400, { error: 'malformed JSON body' });
      }
      const reg = ScriptRegistrationSchema.safeParse(parsed);
      if (!reg.success)
        return sendJson(res, 400, {
          error: 'invalid script',
          issues: reg.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
        });
      state.register(reg.data);
      return sendJson(res, 201, {
        ok: true,
        safetyIdentifier: reg.data.safetyIdentifier,
        pending: state.pending(reg.data.safetyIdentifier),
      });
    }
    if (req.method === 'GET' && url.pathname === '/__model/calls') {
      const since = url.searchParams.get('since');
      if (since !== null && !/^\d+$/.test(since))
        return sendJson(res, 400, { error: 'since must be a non-negative integer (a seq)' });
      const filter: ModelCallFilter = {};
      const sid = url.searchParams.get('safetyIdentifier');
      if (sid) filter.safetyIdentifier = sid;
      if (since !== null) filter.since = Number(since);
      return sendJson(res, 200, { calls: state.list(filter) });
    }
    if (req.method === 'POST' && url.pathname === '/__model/reset') {
      state.reset();
      return sendJson(res, 200, { ok: true });
    }
    return sendJson(res, 404, { error: `no model sandbox control route ${req.method} ${url.pathname}` });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const handle = async () => {
      if (url.pathname.startsWith('/__model/')) return control(req, res, url);
      if (url.pathname === '/v1/chat/completions' || url.pathname === '/chat/completions') {
        if (req.method !== 'POST') return sendJson(res, 405, openAiError(405, `use POST for ${url.pathname}`));
        return completions(req, res, url.pathname);
      }
      return sendJson(
        res,
        404,
        openAiError(
          404,
          `the model sandbox only serves POST /v1/chat/completions (got ${req.method} ${url.pathname}); set OPENAI_API_MODE=chat`,
        ),
      );
    };
    handle().catch((err) => {
      if (!res.headersSent)
        sendJson(
          res,
          500,
          openAiError(500, `model sandbox internal error: ${err instanceof Error ? err.message : String(err)}`),
        );
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = opts.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve((server.address() as AddressInfo).port));
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    port,
    script: (registration) => state.register(ScriptRegistrationSchema.parse(registration)),
    calls: (filter) => state.list(filter),
    pending: (id) => state.pending(id),
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// `npx tsx dev/model-sandbox.ts` runs it standalone (MODEL_SANDBOX_PORT, default ephemeral).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sandbox = await startModelSandbox({ port: Number(process.env.MODEL_SANDBOX_PORT ?? 0) });
  console.log(`model sandbox on ${sandbox.url} (OPENAI_BASE_URL=${sandbox.baseURL}, OPENAI_API_MODE=chat)`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
