import { randomBytes } from 'node:crypto';
import { safetyIdentifierFor, type RecordedModelCall, type ScriptStep } from '../dev/model-sandbox.js';
import type { RecordedCall } from '../dev/manychat-sandbox.js';
import type { TurnRecord } from '../core/turn-record.js';
import { tenantKeys } from '../core/storage/keys.js';
import { parseJson } from '../core/storage/redis-session.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { replyInput, type CaseStep, type CaseTurn, type EvalCase, type Expectation, type ExpectationCore } from './case-format.js';
import { setupCaseWorld, type CaseWorld, type EvalEnvironment } from './environment.js';
import { checkExpectation, formatAction, formatCall, type ActionView, type CallView, type DeliveryView, type Observed } from './expectations.js';
import { drawStep, mulberry32, responseBudgetMs, outputTokensOf, promptTokensOf, seedOf, type LatencyPreset } from './latency-model.js';
import { readToolNames, recordKind, scriptKind, type TurnKind } from './turn-kind.js';

export type Variant = 'product' | 'naive-2-step';

export interface RunCaseOptions {
  preset: LatencyPreset;
  seed: string;
  repeat: number;
  variant: Variant;
  /** The case name latency draws are keyed on (a variant draws like its original). */
  drawKey: string;
  /** Turn indexes a naive variant rewrote into two calls. */
  naiveTurns?: number[];
}

/** How the drawn model time of a turn compares with the tenant's model budget. */
export type DeadlinePath = 'normal' | 'deadline' | 'either';

export interface TurnObservation extends Observed {
  index: number;
  text: string;
  contactId: string;
  kind: TurnKind;
  /** What the script aimed at (null: no model call or a scripted error). */
  scriptKind: Exclude<TurnKind, 'deferred'> | null;
  /** Set on the turns a naive variant rewrote into two calls. */
  naive: boolean;
  primaryTurnId: string | null;
  notes: string[];
  /** The webhook latency of the delivery that ran the turn (not its duplicates). */
  latencyMs: number | null;
  /**
   * When the contact got the turn's own reply: the webhook latency, or for a deferred turn the
   * time its reply reached ManyChat (sendContent) after the delivery was sent; null if never.
   */
  replyLatencyMs: number | null;
  /** Time the model sandbox spent serving this turn's calls (what a real model would take). */
  modelMs: number;
  overheadMs: number | null;
  modelDetail: { source: string; status: number; aborted: boolean; servedMs: number }[];
  scripted: { latencies: number[]; drawn: boolean[]; modelled: boolean; budgetMs: number; path: DeadlinePath } | null;
  record: Pick<TurnRecord, 'timings' | 'redisRoundTrips' | 'modelId' | 'deferred'> | null;
  outbox: { messages: { state: string; attempts: string[] }[]; timedOut: boolean; waitedMs: number } | null;
  failures: string[];
}

export interface CaseResult {
  name: string;
  file: string;
  variant: Variant;
  repeat: number;
  tenantId: string | null;
  passed: boolean;
  failures: string[];
  turns: TurnObservation[];
  error?: string;
  ms: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(['DELIVERED', 'FAILED', 'CANCELLED']);

/** A step's model-sandbox form, with its latency fixed (drawn when the case did not fix it). */
function resolveStep(step: CaseStep, latencyMs: number): ScriptStep {
  const reply = replyInput(step);
  return {
    ...(step.calls ? { calls: step.calls.map((c) => ({ tool: c.tool, ...(c.arguments !== undefined ? { arguments: c.arguments } : { input: c.input ?? {} }) })) } : {}),
    ...(reply !== undefined ? { reply } : {}),
    ...(step.text !== undefined ? { text: step.text } : {}),
    ...(step.error ? { error: step.error } : {}),
    latencyMs,
  };
}

function stepOutputTokens(step: CaseStep): number {
  if (step.error) return 1;
  const calls = (step.calls ?? []).map((c) => ({ tool: c.tool, argumentsText: c.arguments ?? JSON.stringify(c.input ?? {}) }));
  const reply = replyInput(step);
  if (reply !== undefined) calls.push({ tool: 'reply', argumentsText: JSON.stringify(reply) });
  return outputTokensOf(calls, step.text ?? '');
}

/** Latencies for a turn's steps: fixed ones as written, the others drawn (deterministically). */
export function turnLatencies(turn: Pick<CaseTurn, 'model'>, turnIndex: number, opts: Pick<RunCaseOptions, 'preset' | 'seed' | 'repeat' | 'drawKey'>) {
  return turn.model.map((step, i) => {
    if (step.latencyMs !== undefined) return { ms: step.latencyMs, drawn: false };
    const rand = mulberry32(seedOf(opts.seed, opts.drawKey, opts.repeat, turnIndex, i));
    return { ms: drawStep(opts.preset, rand, promptTokensOf(i, turnIndex), stepOutputTokens(step)).totalMs, drawn: true };
  });
}

/** Which path a turn's drawn latencies put it on, against the tenant's model budget. */
export function deadlinePath(latencies: { ms: number; drawn: boolean }[], stepsRun: number, deadlineMs: number): { path: DeadlinePath; budgetMs: number } {
  const budgetMs = responseBudgetMs(deadlineMs);
  const run = latencies.slice(0, stepsRun);
  if (!run.some((l) => l.drawn)) return { path: 'normal', budgetMs };
  const total = run.reduce((a, l) => a + l.ms, 0);
  if (total >= budgetMs + 100) return { path: 'deadline', budgetMs };
  if (total > budgetMs - 400) return { path: 'either', budgetMs };
  return { path: 'normal', budgetMs };
}

/** What a turn that hit the deadline must look like: deferred, or the fallback with nothing performed. */
export function deadlineExpectation(config: TenantConfig, exp: Expectation): Expectation {
  const keep: ExpectationCore = {};
  if (exp.status !== undefined) keep.status = exp.status;
  if (exp.distinctTurns !== undefined) keep.distinctTurns = exp.distinctTurns;
  if (exp.duplicates !== undefined) keep.duplicates = exp.duplicates;
  return {
    ...keep,
    anyOf: [{ deferred: true }, { deferred: false, decision: 'error', committed: [], performed: [], replyContains: [config.fallbackReply] }],
  };
}

function actionView(a: { kind: string; tool: string; args: Record<string, unknown> }): ActionView {
  return { kind: a.kind, tool: a.tool, args: a.args };
}

/** A sandbox call as the case format names it: sendFlow(flow name), addTag(tag name), setField(name=value). */
export function callView(c: RecordedCall, world: Pick<CaseWorld, 'config'>): CallView {
  const body = (c.body && typeof c.body === 'object' ? c.body : {}) as Record<string, unknown>;
  const base = { path: c.path, at: c.at, status: c.status, outcome: c.outcome };
  const last = c.path.split('/').pop() ?? c.path;
  const tagName = (): string | undefined => (typeof body.tag_name === 'string' ? body.tag_name : world.config.tags[Number(body.tag_id) - 1]?.name);
  const fieldName = (): string | undefined => (typeof body.field_name === 'string' ? body.field_name : world.config.fields[Number(body.field_id) - 100]?.name);
  switch (last) {
    case 'sendFlow': {
      const ns = String(body.flow_ns ?? '');
      return { call: 'sendFlow', ...base, flow: world.config.flows.find((f) => f.ns === ns)?.name ?? ns };
    }
    case 'sendContent':
      return { call: 'sendContent', ...base, text: JSON.stringify(body.data ?? '') };
    case 'addTag':
    case 'addTagByName':
      return { call: 'addTag', ...base, tag: tagName() };
    case 'removeTag':
    case 'removeTagByName':
      return { call: 'removeTag', ...base, tag: tagName() };
    case 'setCustomField':
    case 'setCustomFieldByName':
      return { call: 'setField', ...base, field: fieldName(), value: body.field_value };
    default:
      return { call: c.path, ...base };
  }
}

function subscriberOf(c: RecordedCall): string | null {
  const body = c.body as Record<string, unknown> | null;
  return body && body.subscriber_id !== undefined ? String(body.subscriber_id) : null;
}

function deliveryBody(turn: CaseTurn, contactId: string, messageKey: string | null): Record<string, unknown> {
  const contact: Record<string, unknown> = {
    id: contactId,
    first_name: turn.firstName,
    last_name: 'Eval',
    ...(turn.customFields ? { custom_fields: turn.customFields } : {}),
    ...(turn.lastInteraction ? { last_interaction: turn.lastInteraction } : {}),
  };
  if (turn.body === 'bare') return { ...contact, last_input_text: turn.text };
  return { contact, text: turn.text, ...(messageKey ? { message_key: messageKey } : {}) };
}

async function deliver(env: EvalEnvironment, world: CaseWorld, body: unknown, timeoutMs: number): Promise<DeliveryView> {
  const started = performance.now();
  try {
    const res = await fetch(`${env.workerUrl}/v1/manychat/${world.tenantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': world.secret },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let replyText: string | null = null;
    try {
      const json = JSON.parse(text) as { content?: { messages?: { text?: string }[] } };
      replyText = (json.content?.messages ?? []).map((m) => m.text ?? '').join('\n');
    } catch {
      replyText = null;
    }
    return {
      status: res.status,
      ms,
      turnId: res.headers.get('x-turn-id'),
      duplicateOf: res.headers.get('x-duplicate-of'),
      deferred: res.headers.get('x-turn-deferred') === '1',
      replyText,
      ...(res.status >= 400 ? { error: text.slice(0, 300) } : {}),
    };
  } catch (err) {
    return { status: 0, ms: performance.now() - started, turnId: null, duplicateOf: null, deferred: false, replyText: null, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

async function readRecord(env: EvalEnvironment, tenantId: string, turnId: string, waitMs: number): Promise<TurnRecord | null> {
  const key = tenantKeys(tenantId).turn(turnId);
  const until = Date.now() + waitMs;
  for (;;) {
    const raw = await env.session.one((r) => r.get(key));
    if (raw != null) return parseJson(raw) as TurnRecord;
    if (Date.now() > until) return null;
    await sleep(50);
  }
}

/**
 * Waits until QStash has finished with the turn's messages that are due within the wait (outbox
 * deliveries; not a deferred turn's delayed finish-turn job), or the timeout.
 */
async function settleOutbox(env: EvalEnvironment, turnId: string, timeoutMs: number) {
  const started = Date.now();
  const horizon = started + timeoutMs;
  for (;;) {
    const messages = env.stack.qstash.messages().filter((m) => (m.body ?? '').includes(turnId) && m.notBefore <= horizon);
    const done = messages.length > 0 && messages.every((m) => TERMINAL.has(m.state));
    if (done || Date.now() - started > timeoutMs) {
      if (done) await sleep(100); // a stray extra call would show up now
      return {
        messages: messages.map((m) => ({ state: m.state, attempts: m.attempts.map((a) => (a.status !== undefined ? String(a.status) : (a.error ?? '?'))) })),
        timedOut: !done,
        waitedMs: Date.now() - started,
      };
    }
    await sleep(50);
  }
}

function lastSeq<T extends { seq: number }>(items: T[]): number {
  return items.length ? items[items.length - 1]!.seq : 0;
}

/** Runs one turn of a case end to end and observes everything the expectations can ask about. */
async function runTurn(env: EvalEnvironment, world: CaseWorld, c: EvalCase, turn: CaseTurn, index: number, opts: RunCaseOptions, cursors: Map<string, number>): Promise<TurnObservation> {
  const contactId = world.contacts.get(turn.contact)!;
  const sid = safetyIdentifierFor(world.tenantId, contactId);
  const exp = env.live ? (turn.liveExpect ?? { ...(turn.expect.status !== undefined ? { status: turn.expect.status } : {}) }) : turn.expect;

  for (const fault of turn.faults) env.stack.manychat.injectFault({ ...fault, pageId: world.pageId });

  let scripted: TurnObservation['scripted'] = null;
  if (env.model) {
    const latencies = turnLatencies(turn, index, opts);
    const stepsRun = turn.expect.modelCalls ?? Math.min(2, turn.model.length);
    const { path, budgetMs } = deadlinePath(latencies, stepsRun, world.config.deadlineMs);
    scripted = { latencies: latencies.map((l) => l.ms), drawn: latencies.map((l) => l.drawn), modelled: latencies.slice(0, Math.max(1, stepsRun)).every((l) => l.drawn) && turn.model.length > 0, budgetMs, path };
    env.model.script({ safetyIdentifier: sid, steps: turn.model.map((s, i) => resolveStep(s, latencies[i]!.ms)), mode: 'replace' });
  }
  const mcCursor = lastSeq(env.stack.manychat.calls({ pageId: world.pageId }));

  const messageKey = turn.messageKey === false ? null : (turn.messageKey ?? `ev-${index}-${randomBytes(6).toString('hex')}`);
  const body = deliveryBody(turn, contactId, messageKey);
  const timeoutMs = world.config.deadlineMs + 15_000;
  const { count, mode, gapMs } = turn.deliveries;
  const sentAt = Date.now();
  let deliveries: DeliveryView[];
  if (mode === 'concurrent') {
    deliveries = await Promise.all(Array.from({ length: count }, () => deliver(env, world, body, timeoutMs)));
  } else {
    deliveries = [];
    for (let i = 0; i < count; i++) {
      if (i > 0 && gapMs) await sleep(gapMs);
      deliveries.push(await deliver(env, world, body, timeoutMs));
    }
  }

  const primary = deliveries.find((d) => d.status === 200 && d.turnId && !d.duplicateOf) ?? null;
  const primaryTurnId = primary?.turnId ?? deliveries.find((d) => d.turnId)?.turnId ?? null;
  const deferredHeader = primary?.deferred ?? false;
  const record = primaryTurnId ? await readRecord(env, world.tenantId, primaryTurnId, deferredHeader ? world.config.deadlineMs + 20_000 : 3000) : null;
  const deferred = deferredHeader || record?.deferred === true;

  let outbox: TurnObservation['outbox'] = null;
  if (primaryTurnId && (record?.committed.length || deferred)) outbox = await settleOutbox(env, primaryTurnId, turn.expect.performedTimeoutMs ?? 15_000);
  else await sleep(150);

  const mcCalls = env.stack.manychat.calls({ pageId: world.pageId, since: mcCursor }).filter((call) => subscriberOf(call) === contactId);
  const apiCalls = mcCalls.map((call) => callView(call, world));
  const performed = apiCalls.filter((call) => call.status >= 200 && call.status < 300);

  let modelCalls: RecordedModelCall[] = [];
  if (env.model) {
    modelCalls = env.model.calls({ safetyIdentifier: sid, since: cursors.get(sid) ?? 0 });
    if (modelCalls.length) cursors.set(sid, lastSeq(modelCalls));
  }
  const modelMs = env.model ? modelCalls.reduce((a, m) => a + m.servedMs, 0) : (record?.steps ?? []).reduce((a, s) => a + s.ms, 0);
  const last = modelCalls[modelCalls.length - 1];
  const lastPrompt = last?.request ? JSON.stringify(last.request.messages ?? null) : null;

  const observed: Observed = {
    deliveries,
    decision: record?.decision ?? null,
    decisionReason: record?.decisionReason ?? null,
    replyText: primary?.replyText ?? deliveries.find((d) => d.replyText !== null)?.replyText ?? '',
    deferred,
    staged: (record?.staged ?? []).map(actionView),
    committed: (record?.committed ?? []).map(actionView),
    performed,
    apiCalls,
    modelCalls: env.model ? modelCalls.length : (record?.steps.length ?? 0),
    lastPrompt,
  };

  // The expectations: the case's own, or (a drawn latency past the budget) the deadline path.
  let failures: string[];
  if (scripted?.path === 'deadline') {
    failures = checkExpectation(deadlineExpectation(world.config, exp), observed).map((f) => `[model draw ${scripted!.latencies.join('+')} ms ≥ budget ${scripted!.budgetMs} ms: deadline path] ${f}`);
  } else if (scripted?.path === 'either') {
    const own = checkExpectation(exp, observed);
    const late = checkExpectation(deadlineExpectation(world.config, exp), observed);
    failures = own.length && late.length ? [`neither the case's expectations (${own.join('; ')}) nor the deadline path (${late.join('; ')}) held (model draw ${scripted.latencies.join('+')} ms near budget ${scripted.budgetMs} ms)`] : [];
  } else {
    failures = checkExpectation(exp, observed);
  }
  if (!primaryTurnId && (exp.status ?? 200) === 200) failures.unshift('no delivery was answered with an x-turn-id');
  else if (primaryTurnId && !record && !deferred && (exp.status ?? 200) === 200) failures.unshift(`no turn record t:${world.tenantId}:turn:${primaryTurnId} in Redis`);
  if (outbox?.timedOut && (turn.expect.performed || turn.expect.apiCalls !== undefined)) {
    failures.push(`outbox: QStash had not finished with the turn after ${outbox.waitedMs} ms (${outbox.messages.length ? outbox.messages.map((m) => `${m.state} [${m.attempts.join(',')}]`).join('; ') : 'no message published'})`);
  }

  const latencyMs = primary ? primary.ms : null;
  const deferredReply = deferred ? performed.find((call) => call.call === 'sendContent' && call.at) : undefined;
  const replyLatencyMs = !deferred ? latencyMs : deferredReply ? Date.parse(deferredReply.at!) - sentAt : null;
  return {
    ...observed,
    index,
    text: turn.text,
    contactId,
    kind: recordKind(record, deferred),
    scriptKind: scriptKind(turn, readToolNames(world.config)),
    naive: opts.naiveTurns?.includes(index) ?? false,
    primaryTurnId,
    notes: record?.notes ?? [],
    latencyMs,
    replyLatencyMs,
    modelMs,
    overheadMs: latencyMs !== null && !deferred ? latencyMs - modelMs : null,
    modelDetail: modelCalls.map((m) => ({ source: m.source, status: m.status, aborted: m.aborted, servedMs: m.servedMs })),
    scripted,
    record: record ? { timings: record.timings, redisRoundTrips: record.redisRoundTrips, modelId: record.modelId, deferred: record.deferred } : null,
    outbox,
    failures,
  };
}

export async function runCase(env: EvalEnvironment, c: EvalCase, opts: RunCaseOptions): Promise<CaseResult> {
  const started = performance.now();
  const label = opts.variant === 'product' ? c.name : `${c.name}~naive`;
  let world: CaseWorld | null = null;
  const turns: TurnObservation[] = [];
  try {
    world = await setupCaseWorld(env, c, label);
    const cursors = new Map<string, number>();
    for (const [i, turn] of c.turns.entries()) turns.push(await runTurn(env, world, c, turn, i, opts, cursors));
  } catch (err) {
    return { name: label, file: c.file, variant: opts.variant, repeat: opts.repeat, tenantId: world?.tenantId ?? null, passed: false, failures: [`the case could not run: ${err instanceof Error ? err.message : String(err)}`], turns, error: String(err), ms: performance.now() - started };
  }
  const failures = turns.flatMap((t) => t.failures.map((f) => `turn ${t.index + 1}: ${f}`));
  return { name: label, file: c.file, variant: opts.variant, repeat: opts.repeat, tenantId: world.tenantId, passed: failures.length === 0, failures, turns, ms: performance.now() - started };
}

/** What happened in a turn, for a failing case's report. */
export function describeTurn(t: TurnObservation): string {
  const lines = [
    `  turn ${t.index + 1} ${JSON.stringify(t.text.slice(0, 60))} (contact ${t.contactId}, kind ${t.kind})`,
    `    deliveries: ${t.deliveries.map((d) => `${d.status || d.error} ${Math.round(d.ms)} ms${d.duplicateOf ? ' dup' : ''}${d.deferred ? ' deferred' : ''}`).join(', ')}; turn ids ${[...new Set(t.deliveries.map((d) => d.turnId))].join(', ')}`,
    `    decision: ${t.decision ?? '(no record)'}${t.decisionReason ? ` — ${t.decisionReason}` : ''}`,
    `    reply: ${JSON.stringify(t.replyText)}`,
    `    staged: [${t.staged.map(formatAction).join(', ')}]  committed: [${t.committed.map(formatAction).join(', ')}]`,
    `    ManyChat calls: [${t.apiCalls.map(formatCall).join(', ')}]${t.outbox ? `  outbox: ${t.outbox.messages.map((m) => `${m.state} [${m.attempts.join(',')}]`).join('; ') || 'no QStash message'}${t.outbox.timedOut ? ' (timed out)' : ''}` : ''}`,
    `    model calls: ${t.modelCalls} [${t.modelDetail.map((m) => `${m.source} ${m.aborted ? 'aborted' : m.status} ${m.servedMs} ms`).join(', ')}]${t.scripted ? `  scripted latencies ${t.scripted.latencies.join('+')} ms (budget ${t.scripted.budgetMs} ms, ${t.scripted.path})` : ''}`,
  ];
  if (t.notes.length) lines.push(`    notes: ${t.notes.join(' | ')}`);
  return lines.join('\n');
}
