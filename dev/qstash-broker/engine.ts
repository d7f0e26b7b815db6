import { createHash, randomBytes } from 'node:crypto';
import { DAY_MS, parseRetryAfter, type PublishSpec } from './parse.js';
import { signDelivery } from './sign.js';

/**
 * The broker's store and delivery loop: in-memory messages, one timer per scheduled attempt, a DLQ.
 * Nothing is persisted: a restart loses every pending message, unlike real QStash.
 */
export interface EngineConfig {
  signingKey: () => string;
  retryBaseMs: number;
  maxRetryDelayMs: number;
  defaultTimeoutMs: number;
  dedupWindowMs: number;
  log: (line: string) => void;
}

/** CREATED/RETRY = waiting for a timer, ACTIVE = attempt in flight, FAILED = moved to the DLQ. */
export type MessageState = 'CREATED' | 'RETRY' | 'ACTIVE' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export interface Attempt {
  /** Value of `Upstash-Retried` on this attempt. */
  retried: number;
  at: number;
  durationMs: number;
  status?: number;
  error?: string;
  responseBody?: string;
}

interface Message {
  messageId: string;
  url: string;
  method: string;
  header: Record<string, string>;
  body: Buffer;
  maxRetries: number;
  retryDelay?: PublishSpec['retryDelay'];
  timeoutMs: number;
  notBefore: number;
  createdAt: number;
  callback?: string;
  failureCallback?: string;
  callerIp?: string;
  /** Callback deliveries never trigger callbacks of their own. */
  isCallback: boolean;
  state: MessageState;
  attempts: Attempt[];
  nextDeliveryAt?: number;
  timer?: NodeJS.Timeout;
  dlqId?: string;
}

interface Outcome {
  status?: number;
  headers?: Headers;
  body?: Buffer;
  error?: string;
}

interface DlqEntry {
  dlqId: string;
  message: Message;
  outcome: Outcome;
}

export interface NewMessage {
  url: string;
  spec: PublishSpec;
  body: Buffer;
  callerIp?: string;
}

/** Shape of the SDK's `Message` type (plus `state`, which the real API also reports). */
export interface MessageView {
  messageId: string;
  url: string;
  method: string;
  header: Record<string, string[]>;
  body?: string;
  bodyBase64?: string;
  maxRetries: number;
  retryDelayExpression?: string;
  notBefore: number;
  createdAt: number;
  callback?: string;
  failureCallback?: string;
  callerIp?: string;
  state: MessageState;
}

/** Dev-only view: everything above plus the attempt log. */
export interface DevMessageView extends MessageView {
  retried: number;
  nextDeliveryAt?: number;
  dlqId?: string;
  attempts: Attempt[];
}

export interface DlqView extends MessageView {
  dlqId: string;
  responseStatus?: number;
  responseHeader?: Record<string, string[]>;
  responseBody?: string;
  responseBodyBase64?: string;
  /** Not in real QStash: why the last attempt failed without a response (timeout, connection refused). */
  error?: string;
}

const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout overflows (fires at once) beyond this
const MAX_KEPT_MESSAGES = 10_000;
const MAX_RECORDED_BODY = 4096;
const ID_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomId(prefix: string, length = 26): string {
  return prefix + [...randomBytes(length)].map((b) => ID_CHARS[b % ID_CHARS.length]).join('');
}

/** UTF-8 text when the bytes are valid UTF-8, else base64: mirrors QStash's body/bodyBase64 split. */
function textOrBase64(bytes: Uint8Array): { text?: string; base64?: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { base64: Buffer.from(bytes).toString('base64') };
  }
}

function headerLists(headers: Iterable<[string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of headers) (out[k] ??= []).push(v);
  return out;
}

const isWaiting = (m: Message) => m.state === 'CREATED' || m.state === 'RETRY';
const isPending = (m: Message) => isWaiting(m) || m.state === 'ACTIVE';
const errorText = (err: unknown) => (err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err));

export class Engine {
  private readonly messages = new Map<string, Message>();
  private readonly dlq = new Map<string, DlqEntry>();
  private readonly dedup = new Map<string, { messageId: string; expiresAt: number }>();
  private readonly running = new Set<Promise<void>>();
  private readonly inflight = new Set<AbortController>();
  private paused = false;
  private closed = false;
  private dlqSeq = 0;

  constructor(private readonly cfg: EngineConfig) {}

  // ---- publishing -------------------------------------------------------------------------------

  publish(input: NewMessage): { messageId: string; deduplicated: boolean } {
    const key = this.dedupKey(input);
    const now = Date.now();
    for (const [k, v] of this.dedup) if (v.expiresAt <= now) this.dedup.delete(k);
    const existing = key === undefined ? undefined : this.dedup.get(key);
    if (existing) {
      this.cfg.log(`publish deduplicated → ${existing.messageId}`);
      return { messageId: existing.messageId, deduplicated: true };
    }
    const { spec } = input;
    const msg = this.create({
      url: input.url,
      method: spec.method ?? 'POST',
      header: { ...spec.forward, ...(spec.contentType === undefined ? {} : { 'content-type': spec.contentType }) },
      body: input.body,
      maxRetries: spec.retries ?? 3,
      retryDelay: spec.retryDelay,
      timeoutMs: spec.timeoutMs ?? this.cfg.defaultTimeoutMs,
      notBefore: spec.notBeforeMs ?? now + (spec.delayMs ?? 0),
      callback: spec.callback,
      failureCallback: spec.failureCallback,
      callerIp: input.callerIp,
      isCallback: false,
    });
    if (key !== undefined) this.dedup.set(key, { messageId: msg.messageId, expiresAt: now + this.cfg.dedupWindowMs });
    return { messageId: msg.messageId, deduplicated: false };
  }

  /** Dedup id wins; content-based hashes destination, body, Content-Type and forwarded headers. */
  private dedupKey({ url, spec, body }: NewMessage): string | undefined {
    if (spec.deduplicationId !== undefined) return `id:${spec.deduplicationId}`;
    if (!spec.contentBasedDeduplication) return undefined;
    const forward = Object.entries(spec.forward).sort(([a], [b]) => a.localeCompare(b));
    const hash = createHash('sha256').update(JSON.stringify([url, spec.contentType ?? '', forward])).update(body).digest('hex');
    return `content:${hash}`;
  }

  private create(fields: Omit<Message, 'messageId' | 'createdAt' | 'state' | 'attempts'>): Message {
    const msg: Message = { ...fields, messageId: randomId('msg_'), createdAt: Date.now(), state: 'CREATED', attempts: [] };
    this.messages.set(msg.messageId, msg);
    this.pruneFinished();
    const delay = Math.max(0, msg.notBefore - Date.now());
    this.cfg.log(`publish ${msg.messageId} ${msg.method} ${msg.url}${delay ? ` (in ${delay} ms)` : ''}`);
    this.arm(msg, msg.notBefore);
    return msg;
  }

  /** Keeps memory bounded in a long dev session: forget the oldest finished messages. */
  private pruneFinished(): void {
    if (this.messages.size <= MAX_KEPT_MESSAGES) return;
    for (const [id, m] of this.messages) {
      if (this.messages.size <= MAX_KEPT_MESSAGES) break;
      if (!isPending(m) && m.state !== 'FAILED') this.messages.delete(id);
    }
  }

  // ---- scheduling -------------------------------------------------------------------------------

  private arm(msg: Message, at: number): void {
    msg.nextDeliveryAt = at;
    clearTimeout(msg.timer);
    msg.timer = undefined;
    if (this.paused || this.closed) return; // resume() re-arms
    const wait = Math.max(0, at - Date.now());
    msg.timer = setTimeout(() => {
      msg.timer = undefined;
      if (wait > MAX_TIMER_MS) this.arm(msg, at);
      else this.launch(msg);
    }, Math.min(wait, MAX_TIMER_MS));
  }

  private launch(msg: Message): void {
    if (this.closed || this.paused || !isWaiting(msg)) return;
    const run: Promise<void> = this.attempt(msg)
      .catch((err: unknown) => this.cfg.log(`internal error delivering ${msg.messageId}: ${errorText(err)}`))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  pause(): void {
    this.paused = true;
    for (const m of this.messages.values()) {
      clearTimeout(m.timer);
      m.timer = undefined;
    }
    this.cfg.log('deliveries paused');
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    for (const m of this.messages.values()) if (isWaiting(m)) this.arm(m, m.nextDeliveryAt ?? Date.now());
    this.cfg.log('deliveries resumed');
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Stops timers, aborts in-flight deliveries and waits for them to unwind. */
  async close(): Promise<void> {
    this.closed = true;
    for (const m of this.messages.values()) clearTimeout(m.timer);
    for (const ac of this.inflight) ac.abort(new Error('broker closed'));
    await Promise.allSettled([...this.running]);
  }

  // ---- delivery ---------------------------------------------------------------------------------

  private async attempt(msg: Message): Promise<void> {
    msg.state = 'ACTIVE';
    msg.nextDeliveryAt = undefined;
    const retried = msg.attempts.length;
    const at = Date.now();
    const outcome = await this.send(msg, retried);
    msg.attempts.push({
      retried,
      at,
      durationMs: Date.now() - at,
      status: outcome.status,
      error: outcome.error,
      responseBody: outcome.body?.subarray(0, MAX_RECORDED_BODY).toString('utf8'),
    });
    if (this.closed || !isPending(msg)) return; // cancelled while in flight
    this.settle(msg, outcome, retried);
  }

  private async send(msg: Message, retried: number): Promise<Outcome> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new Error(`timed out after ${msg.timeoutMs} ms`)), msg.timeoutMs);
    this.inflight.add(ac);
    try {
      const body = msg.method === 'GET' || msg.method === 'HEAD' ? new Uint8Array() : msg.body;
      const headers = new Headers(msg.header);
      headers.set('Upstash-Signature', await signDelivery(this.cfg.signingKey(), msg.url, body));
      headers.set('Upstash-Message-Id', msg.messageId);
      headers.set('Upstash-Retried', String(retried));
      headers.set('User-Agent', 'Upstash-QStash');
      if (msg.callerIp) headers.set('Upstash-Caller-Ip', msg.callerIp);
      // redirect: manual, so a 3xx counts as a failed attempt instead of silently turning POST into GET.
      const res = await fetch(msg.url, { method: msg.method, headers, body: body.length ? body : undefined, signal: ac.signal, redirect: 'manual' });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    } catch (err) {
      return { error: ac.signal.aborted ? errorText(ac.signal.reason) : errorText(err) };
    } finally {
      clearTimeout(timer);
      this.inflight.delete(ac);
    }
  }

  private settle(msg: Message, outcome: Outcome, retried: number): void {
    const { status } = outcome;
    const what = status === undefined ? outcome.error : `HTTP ${status}`;
    if (status !== undefined && msg.callback && !msg.isCallback) this.callback(msg.callback, msg, outcome, retried);
    if (status !== undefined && status >= 200 && status < 300) {
      msg.state = 'DELIVERED';
      this.cfg.log(`delivered ${msg.messageId} (attempt ${retried + 1}, ${what})`);
      return;
    }
    const nonRetryable = status === 489 && outcome.headers?.get('upstash-nonretryable-error')?.toLowerCase() === 'true';
    if (nonRetryable || retried >= msg.maxRetries) {
      this.toDlq(msg, outcome, nonRetryable ? 'non-retryable' : `after ${retried + 1} attempts`);
      return;
    }
    const delay = this.retryDelay(msg, retried, outcome);
    msg.state = 'RETRY';
    this.cfg.log(`attempt ${retried + 1} of ${msg.messageId} failed (${what}); retry in ${delay} ms`);
    this.arm(msg, Date.now() + delay);
  }

  /** Retry-After beats Upstash-Retry-Delay beats the dev backoff min(base·2^n, max). */
  private retryDelay(msg: Message, retried: number, outcome: Outcome): number {
    const fromHeader = parseRetryAfter(outcome.headers?.get('retry-after') ?? null, Date.now());
    if (fromHeader !== undefined) return fromHeader;
    if (msg.retryDelay) {
      const ms = msg.retryDelay.fn(retried);
      if (Number.isFinite(ms)) return Math.min(Math.max(0, Math.round(ms)), DAY_MS);
    }
    return Math.min(this.cfg.retryBaseMs * 2 ** retried, this.cfg.maxRetryDelayMs);
  }

  private toDlq(msg: Message, outcome: Outcome, why: string): void {
    const dlqId = `${Date.now()}-${this.dlqSeq++}`;
    msg.state = 'FAILED';
    msg.dlqId = dlqId;
    this.dlq.set(dlqId, { dlqId, message: msg, outcome });
    this.cfg.log(`${msg.messageId} moved to DLQ as ${dlqId} (${why}; last: ${outcome.status ?? outcome.error})`);
    if (msg.failureCallback && !msg.isCallback) this.callback(msg.failureCallback, msg, outcome, msg.attempts.length - 1, dlqId);
  }

  /** Callbacks are ordinary signed messages whose JSON body describes the source attempt (B4). */
  private callback(target: string, msg: Message, outcome: Outcome, retried: number, dlqId?: string): void {
    const payload = {
      status: outcome.status ?? 0,
      header: headerLists(outcome.headers ?? []),
      body: (outcome.body ?? Buffer.alloc(0)).toString('base64'),
      retried,
      maxRetries: msg.maxRetries,
      sourceMessageId: msg.messageId,
      url: msg.url,
      method: msg.method,
      sourceHeader: headerLists(Object.entries(msg.header)),
      sourceBody: msg.body.toString('base64'),
      notBefore: msg.notBefore,
      createdAt: msg.createdAt,
      callerIP: msg.callerIp ?? '',
      ...(dlqId === undefined ? {} : { dlqId }),
    };
    this.create({
      url: target,
      method: 'POST',
      header: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(payload)),
      maxRetries: 3,
      timeoutMs: this.cfg.defaultTimeoutMs,
      notBefore: Date.now(),
      isCallback: true,
    });
  }

  // ---- messages API -----------------------------------------------------------------------------

  view(id: string): MessageView | undefined {
    const m = this.messages.get(id);
    return m && this.toView(m);
  }

  devView(id: string): DevMessageView | undefined {
    const m = this.messages.get(id);
    return m && this.toDevView(m);
  }

  devList(): DevMessageView[] {
    return [...this.messages.values()].map((m) => this.toDevView(m));
  }

  /** Cancels a pending message (an attempt already in flight completes, but nothing follows it). */
  cancel(id: string): boolean {
    const m = this.messages.get(id);
    if (!m || !isPending(m)) return false;
    clearTimeout(m.timer);
    m.timer = undefined;
    m.state = 'CANCELLED';
    this.cfg.log(`cancelled ${id}`);
    return true;
  }

  cancelMany(ids: string[] | 'all'): number {
    const targets = ids === 'all' ? [...this.messages.keys()] : ids;
    return targets.filter((id) => this.cancel(id)).length;
  }

  private toView(m: Message): MessageView {
    const body = textOrBase64(m.body);
    return {
      messageId: m.messageId,
      url: m.url,
      method: m.method,
      header: headerLists(Object.entries(m.header)),
      ...(body.text === undefined ? { bodyBase64: body.base64 } : { body: body.text }),
      maxRetries: m.maxRetries,
      ...(m.retryDelay ? { retryDelayExpression: m.retryDelay.expression } : {}),
      notBefore: m.notBefore,
      createdAt: m.createdAt,
      ...(m.callback ? { callback: m.callback } : {}),
      ...(m.failureCallback ? { failureCallback: m.failureCallback } : {}),
      ...(m.callerIp ? { callerIp: m.callerIp } : {}),
      state: m.state,
    };
  }

  private toDevView(m: Message): DevMessageView {
    return { ...this.toView(m), retried: Math.max(0, m.attempts.length - 1), nextDeliveryAt: m.nextDeliveryAt, dlqId: m.dlqId, attempts: [...m.attempts] };
  }

  // ---- DLQ API ----------------------------------------------------------------------------------

  dlqList(filter: { dlqIds?: string[]; messageId?: string; url?: string }): DlqView[] {
    return [...this.dlq.values()]
      .filter((e) => (!filter.dlqIds?.length || filter.dlqIds.includes(e.dlqId)) && (!filter.messageId || e.message.messageId === filter.messageId) && (!filter.url || e.message.url === filter.url))
      .map((e) => this.toDlqView(e));
  }

  dlqGet(dlqId: string): DlqView | undefined {
    const e = this.dlq.get(dlqId);
    return e && this.toDlqView(e);
  }

  dlqDelete(dlqId: string): boolean {
    return this.dlq.delete(dlqId);
  }

  /** Republishes as a new message (same body and headers, options overridable) and drops the DLQ entry. */
  dlqRetry(dlqId: string, overrides: PublishSpec): string | undefined {
    const e = this.dlq.get(dlqId);
    if (!e) return undefined;
    this.dlq.delete(dlqId);
    const old = e.message;
    const now = Date.now();
    const msg = this.create({
      url: old.url,
      method: overrides.method ?? old.method,
      header: old.header,
      body: old.body,
      maxRetries: overrides.retries ?? old.maxRetries,
      retryDelay: overrides.retryDelay ?? old.retryDelay,
      timeoutMs: overrides.timeoutMs ?? old.timeoutMs,
      notBefore: overrides.notBeforeMs ?? now + (overrides.delayMs ?? 0),
      callback: overrides.callback ?? old.callback,
      failureCallback: overrides.failureCallback ?? old.failureCallback,
      callerIp: old.callerIp,
      isCallback: old.isCallback,
    });
    this.cfg.log(`DLQ ${dlqId} retried as ${msg.messageId}`);
    return msg.messageId;
  }

  private toDlqView(e: DlqEntry): DlqView {
    const { outcome } = e;
    const body = outcome.body && textOrBase64(outcome.body);
    return {
      ...this.toView(e.message),
      dlqId: e.dlqId,
      ...(outcome.status === undefined ? {} : { responseStatus: outcome.status }),
      ...(outcome.headers ? { responseHeader: headerLists(outcome.headers) } : {}),
      ...(body === undefined ? {} : body.text === undefined ? { responseBodyBase64: body.base64 } : { responseBody: body.text }),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    };
  }
}
