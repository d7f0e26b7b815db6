import { createHash, randomBytes } from 'node:crypto';
import { DeadLetters } from './dead-letters.js';
import { callbackPayload, errorText, retryDelayMs, sendAttempt } from './delivery.js';
import { EventLog } from './event-log.js';
import { FlowGate } from './flow-control.js';
import type { PublishSpec } from './parse.js';
import type { Message, NewMessage, Outcome } from './types.js';

/**
 * The broker's store and delivery loop: in-memory messages, one timer per scheduled attempt, a DLQ
 * and the event log. Nothing is persisted: a restart loses every pending message, unlike real QStash.
 */
export interface EngineConfig {
  signingKey: () => string;
  retryBaseMs: number;
  maxRetryDelayMs: number;
  defaultTimeoutMs: number;
  dedupWindowMs: number;
  log: (line: string) => void;
}

const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout overflows (fires at once) beyond this
const MAX_KEPT_MESSAGES = 10_000;
const MAX_RECORDED_BODY = 4096;
const ID_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function randomId(prefix: string, length = 26): string {
  return prefix + [...randomBytes(length)].map((b) => ID_CHARS[b % ID_CHARS.length]).join('');
}

const isWaiting = (m: Message) => m.state === 'CREATED' || m.state === 'RETRY';
export const isPending = (m: Message) => isWaiting(m) || m.state === 'ACTIVE';

export class Engine {
  private readonly messages = new Map<string, Message>();
  readonly dlq = new DeadLetters();
  readonly events = new EventLog();
  private readonly dedup = new Map<string, { messageId: string; expiresAt: number }>();
  private readonly running = new Set<Promise<void>>();
  private readonly inflight = new Set<AbortController>();
  private readonly flow = new FlowGate();
  private paused = false;
  private closed = false;

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
      labels: spec.labels ?? [],
      flowControl: spec.flowControl,
      scheduleId: input.scheduleId,
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
    const hash = createHash('sha256')
      .update(JSON.stringify([url, spec.contentType ?? '', forward]))
      .update(body)
      .digest('hex');
    return `content:${hash}`;
  }

  /**
   * Messages accepted and delivered since start: kept apart from the message list, which forgets
   * the oldest finished messages past MAX_KEPT_MESSAGES (a count of the list stops at that cap).
   */
  readonly totals = { published: 0, delivered: 0 };

  private create(fields: Omit<Message, 'messageId' | 'createdAt' | 'state' | 'attempts'>): Message {
    this.totals.published += 1;
    const msg: Message = {
      ...fields,
      messageId: randomId('msg_'),
      createdAt: Date.now(),
      state: 'CREATED',
      attempts: [],
    };
    this.messages.set(msg.messageId, msg);
    this.pruneFinished();
    const delay = Math.max(0, msg.notBefore - Date.now());
    this.cfg.log(`publish ${msg.messageId} ${msg.method} ${msg.url}${delay ? ` (in ${delay} ms)` : ''}`);
    this.events.record(msg, 'CREATED', { nextDeliveryTime: msg.notBefore });
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
    msg.timer = setTimeout(
      () => {
        msg.timer = undefined;
        if (wait > MAX_TIMER_MS) this.arm(msg, at);
        else this.launch(msg);
      },
      Math.min(wait, MAX_TIMER_MS),
    );
  }

  private launch(msg: Message): void {
    if (this.closed || this.paused || !isWaiting(msg)) return;
    const gate = this.flow.admit(msg, Date.now());
    if (gate.kind === 'later') return this.arm(msg, gate.at);
    if (gate.kind === 'queued') return void (msg.nextDeliveryAt = undefined); // launched again when the key has room
    const run: Promise<void> = this.attempt(msg)
      .catch((err: unknown) => this.cfg.log(`internal error delivering ${msg.messageId}: ${errorText(err)}`))
      .finally(() => {
        this.running.delete(run);
        for (const next of this.flow.release(msg)) this.launch(next);
      });
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
    this.events.record(msg, 'ACTIVE');
    const retried = msg.attempts.length;
    const at = Date.now();
    const outcome = await sendAttempt(msg, retried, this.cfg.signingKey(), this.inflight);
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

  private settle(msg: Message, outcome: Outcome, retried: number): void {
    const { status } = outcome;
    const what = status === undefined ? outcome.error : `HTTP ${status}`;
    if (status !== undefined && msg.callback && !msg.isCallback) this.callback(msg.callback, msg, outcome, retried);
    if (status !== undefined && status >= 200 && status < 300) {
      msg.state = 'DELIVERED';
      this.totals.delivered += 1;
      this.events.record(msg, 'DELIVERED');
      this.cfg.log(`delivered ${msg.messageId} (attempt ${retried + 1}, ${what})`);
      return;
    }
    this.events.record(msg, 'ERROR', { outcome });
    const nonRetryable = status === 489 && outcome.headers?.get('upstash-nonretryable-error')?.toLowerCase() === 'true';
    if (nonRetryable || retried >= msg.maxRetries) {
      this.toDlq(msg, outcome, nonRetryable ? 'non-retryable' : `after ${retried + 1} attempts`);
      return;
    }
    const delay = retryDelayMs(msg, retried, outcome, this.cfg);
    msg.state = 'RETRY';
    this.events.record(msg, 'RETRY', { nextDeliveryTime: Date.now() + delay });
    this.cfg.log(`attempt ${retried + 1} of ${msg.messageId} failed (${what}); retry in ${delay} ms`);
    this.arm(msg, Date.now() + delay);
  }

  private toDlq(msg: Message, outcome: Outcome, why: string): void {
    const { dlqId } = this.dlq.add(msg, outcome);
    msg.state = 'FAILED';
    msg.dlqId = dlqId;
    this.events.record(msg, 'FAILED');
    this.cfg.log(`${msg.messageId} moved to DLQ as ${dlqId} (${why}; last: ${outcome.status ?? outcome.error})`);
    if (msg.failureCallback && !msg.isCallback)
      this.callback(msg.failureCallback, msg, outcome, msg.attempts.length - 1, dlqId);
  }

  /** Callbacks are ordinary signed messages whose JSON body describes the source attempt (B4). */
  private callback(target: string, msg: Message, outcome: Outcome, retried: number, dlqId?: string): void {
    this.create({
      url: target,
      method: 'POST',
      header: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(callbackPayload(msg, outcome, retried, dlqId))),
      maxRetries: 3,
      timeoutMs: this.cfg.defaultTimeoutMs,
      notBefore: Date.now(),
      labels: [],
      isCallback: true,
    });
  }

  // ---- messages and DLQ -------------------------------------------------------------------------

  get(id: string): Message | undefined {
    return this.messages.get(id);
  }

  /** Every known message, oldest first. */
  all(): Message[] {
    return [...this.messages.values()];
  }

  /** Cancels a pending message (an attempt already in flight completes, but nothing follows it). */
  cancel(id: string): boolean {
    const m = this.messages.get(id);
    if (!m || !isPending(m)) return false;
    clearTimeout(m.timer);
    m.timer = undefined;
    this.events.record(m, 'CANCEL_REQUESTED');
    m.state = 'CANCELLED';
    this.events.record(m, 'CANCELLED');
    this.cfg.log(`cancelled ${id}`);
    return true;
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
      labels: overrides.labels ?? old.labels,
      flowControl: overrides.flowControl ?? old.flowControl,
      scheduleId: old.scheduleId,
      isCallback: old.isCallback,
    });
    this.cfg.log(`DLQ ${dlqId} retried as ${msg.messageId}`);
    return msg.messageId;
  }
}
