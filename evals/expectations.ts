import type { ActionExpect, Expectation, ExpectationCore, PerformedExpect } from './case-format.js';

/** What the runner saw of one turn, in the shape expectations are checked against. */
export interface ActionView {
  kind: string;
  tool: string;
  args: Record<string, unknown>;
}

export interface CallView {
  call: string;
  path: string;
  /** When the sandbox received it (ISO). */
  at?: string;
  status: number;
  outcome: string;
  flow?: string;
  tag?: string;
  field?: string;
  value?: unknown;
  text?: string;
}

export interface DeliveryView {
  status: number;
  ms: number;
  turnId: string | null;
  duplicateOf: string | null;
  deferred: boolean;
  replyText: string | null;
  error?: string;
}

export interface Observed {
  deliveries: DeliveryView[];
  decision: string | null;
  decisionReason: string | null;
  replyText: string;
  deferred: boolean;
  staged: ActionView[];
  committed: ActionView[];
  /** Successful ManyChat calls for the contact, in order. */
  performed: CallView[];
  /** Every ManyChat call for the contact. */
  apiCalls: CallView[];
  modelCalls: number;
  lastPrompt: string | null;
}

const j = (v: unknown) => JSON.stringify(v);

export function formatAction(a: { kind: string; tool?: string; args?: Record<string, unknown> }): string {
  const args = a.args && Object.keys(a.args).length ? j(a.args) : '';
  return `${a.kind}${a.tool ? `(${a.tool})` : ''}${args}`;
}

export function formatCall(c: Partial<CallView> & { call: string }): string {
  const key = c.flow ?? c.tag ?? (c.field !== undefined ? `${c.field}=${j(c.value)}` : undefined) ?? (c.text !== undefined ? j(c.text.slice(0, 40)) : undefined);
  const status = c.status !== undefined ? ` ${c.status}${c.outcome === 'fault' ? ' fault' : ''}` : '';
  return `${c.call}${key !== undefined ? `(${key})` : ''}${status}`;
}

function formatExpectedCall(e: PerformedExpect): string {
  const key = e.flow ?? e.tag ?? (e.field !== undefined ? `${e.field}=${j(e.value)}` : undefined) ?? (e.textContains !== undefined ? `…${e.textContains}…` : undefined);
  return `${e.call}${key !== undefined ? `(${key})` : ''}`;
}

const list = (items: string[]) => `[${items.join(', ')}]`;

function actionMatches(e: ActionExpect, a: ActionView): boolean {
  if (e.kind !== a.kind) return false;
  if (e.tool !== undefined && e.tool !== a.tool) return false;
  for (const [k, v] of Object.entries(e.args ?? {})) if (j(a.args[k]) !== j(v)) return false;
  return true;
}

function callMatches(e: PerformedExpect, c: CallView): boolean {
  if (e.call !== c.call) return false;
  if (e.flow !== undefined && e.flow !== c.flow) return false;
  if (e.tag !== undefined && e.tag !== c.tag) return false;
  if (e.field !== undefined && e.field !== c.field) return false;
  if (e.value !== undefined && j(e.value) !== j(c.value)) return false;
  if (e.textContains !== undefined && !(c.text ?? '').toLowerCase().includes(e.textContains.toLowerCase())) return false;
  return true;
}

function checkList<E, A>(name: string, expected: E[], actual: A[], matches: (e: E, a: A) => boolean, fe: (e: E) => string, fa: (a: A) => string): string[] {
  const ok = expected.length === actual.length && expected.every((e, i) => matches(e, actual[i]!));
  return ok ? [] : [`${name}: expected ${list(expected.map(fe))}, got ${list(actual.map(fa))}`];
}

/** Every expectation given that does not hold, each as "what: expected X, got Y". */
export function checkCore(exp: ExpectationCore, o: Observed): string[] {
  const f: string[] = [];
  const status = exp.status ?? 200;
  const badStatus = o.deliveries.filter((d) => d.status !== status);
  if (badStatus.length) f.push(`status: expected every delivery to answer ${status}, got ${list(o.deliveries.map((d) => (d.error ? `error ${d.error}` : String(d.status))))}`);
  if (exp.decision !== undefined && exp.decision !== o.decision) f.push(`decision: expected ${exp.decision}, got ${o.decision ?? 'no turn record'}`);
  for (const s of exp.reasonContains ?? []) {
    if (!(o.decisionReason ?? '').toLowerCase().includes(s.toLowerCase())) f.push(`reasonContains: expected the decision reason to contain ${j(s)}, got ${j(o.decisionReason)}`);
  }
  const reply = o.replyText.toLowerCase();
  for (const s of exp.replyContains ?? []) if (!reply.includes(s.toLowerCase())) f.push(`replyContains: expected the reply to contain ${j(s)}, got ${j(o.replyText)}`);
  for (const s of exp.replyNotContains ?? []) if (reply.includes(s.toLowerCase())) f.push(`replyNotContains: expected the reply not to contain ${j(s)}, got ${j(o.replyText)}`);
  if (exp.replyEmpty !== undefined && exp.replyEmpty !== (o.replyText === '')) f.push(`replyEmpty: expected ${exp.replyEmpty ? 'an empty reply' : 'a reply'}, got ${j(o.replyText)}`);
  if (exp.staged) f.push(...checkList('staged', exp.staged, o.staged, actionMatches, formatAction, formatAction));
  if (exp.committed) f.push(...checkList('committed', exp.committed, o.committed, actionMatches, formatAction, formatAction));
  if (exp.performed) f.push(...checkList('performed', exp.performed, o.performed, callMatches, formatExpectedCall, formatCall));
  if (exp.apiCalls !== undefined && exp.apiCalls !== o.apiCalls.length) f.push(`apiCalls: expected ${exp.apiCalls} ManyChat calls for the contact, got ${o.apiCalls.length} ${list(o.apiCalls.map(formatCall))}`);
  if (exp.deferred !== undefined && exp.deferred !== o.deferred) f.push(`deferred: expected ${exp.deferred}, got ${o.deferred}`);
  if (exp.modelCalls !== undefined && exp.modelCalls !== o.modelCalls) f.push(`modelCalls: expected ${exp.modelCalls}, got ${o.modelCalls}`);
  for (const s of exp.promptContains ?? []) {
    if (!(o.lastPrompt ?? '').includes(s)) f.push(`promptContains: expected the last model request to contain ${j(s)}${o.lastPrompt === null ? ', but there was no model call' : ''}`);
  }
  const turnIds = new Set(o.deliveries.map((d) => d.turnId).filter((t): t is string => !!t));
  if (exp.distinctTurns !== undefined && exp.distinctTurns !== turnIds.size) f.push(`distinctTurns: expected ${exp.distinctTurns}, got ${turnIds.size} ${list([...turnIds])}`);
  const dups = o.deliveries.filter((d) => d.duplicateOf).length;
  if (exp.duplicates !== undefined && exp.duplicates !== dups) f.push(`duplicates: expected ${exp.duplicates} deliveries answered as duplicates, got ${dups}`);
  if (exp.sameReply) {
    const texts = new Set(o.deliveries.map((d) => d.replyText));
    if (texts.size !== 1) f.push(`sameReply: expected one reply text over all deliveries, got ${list([...texts].map((t) => j(t)))}`);
  }
  return f;
}

/** The base expectations, and (if given) at least one of the alternatives. */
export function checkExpectation(exp: Expectation, o: Observed): string[] {
  const { anyOf, performedTimeoutMs: _ignored, ...core } = exp;
  const failures = checkCore(core, o);
  if (anyOf?.length) {
    const results = anyOf.map((alt) => checkCore(alt, o));
    if (!results.some((r) => r.length === 0)) {
      failures.push(`anyOf: none of ${anyOf.length} alternatives held — ${results.map((r, i) => `(${i + 1}) ${r.join('; ')}`).join(' | ')}`);
    }
  }
  return failures;
}
