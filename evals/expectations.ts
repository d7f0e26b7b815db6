import type { ActionExpect, Expectation, ExpectationCore, PerformedExpect } from './case-expect-schema.js';
import { checkReplies, checkStatuses, checkWebhookMs } from './expectations-deliveries.js';
import { checkPending, checkRows } from './expectations-gated.js';
import { formatAction, formatCall, j, list, type ActionView, type CallView, type Observed } from './observed.js';

export { formatAction, formatCall, formatPending } from './observed.js';
export type { ActionView, CallView, DeliveryView, Observed, PendingView } from './observed.js';

function formatExpectedCall(e: PerformedExpect): string {
  const key =
    e.flow ??
    e.tag ??
    (e.field !== undefined ? `${e.field}=${j(e.value)}` : undefined) ??
    (e.textContains !== undefined ? `…${e.textContains}…` : undefined) ??
    e.targetAppId;
  return `${e.call}${key !== undefined ? `(${key})` : ''}`;
}

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
  if (e.textContains !== undefined && !(c.text ?? '').toLowerCase().includes(e.textContains.toLowerCase()))
    return false;
  if (e.targetAppId !== undefined && e.targetAppId !== c.targetAppId) return false;
  return true;
}

function checkList<E, A>(
  name: string,
  expected: E[],
  actual: A[],
  matches: (e: E, a: A) => boolean,
  fe: (e: E) => string,
  fa: (a: A) => string,
): string[] {
  const ok = expected.length === actual.length && expected.every((e, i) => matches(e, actual[i]!));
  return ok ? [] : [`${name}: expected ${list(expected.map(fe))}, got ${list(actual.map(fa))}`];
}

/** Every expectation given that does not hold, each as "what: expected X, got Y". */
export function checkCore(exp: ExpectationCore, o: Observed): string[] {
  const f: string[] = [];
  f.push(...checkStatuses(exp, o));
  if (exp.decision !== undefined && exp.decision !== o.decision)
    f.push(`decision: expected ${exp.decision}, got ${o.decision ?? 'no turn record'}`);
  for (const s of exp.reasonContains ?? []) {
    if (!(o.decisionReason ?? '').toLowerCase().includes(s.toLowerCase()))
      f.push(`reasonContains: expected the decision reason to contain ${j(s)}, got ${j(o.decisionReason)}`);
  }
  const reply = o.replyText.toLowerCase();
  for (const s of exp.replyContains ?? [])
    if (!reply.includes(s.toLowerCase()))
      f.push(`replyContains: expected the reply to contain ${j(s)}, got ${j(o.replyText)}`);
  for (const s of exp.replyNotContains ?? [])
    if (reply.includes(s.toLowerCase()))
      f.push(`replyNotContains: expected the reply not to contain ${j(s)}, got ${j(o.replyText)}`);
  if (exp.replyEmpty !== undefined && exp.replyEmpty !== (o.replyText === ''))
    f.push(`replyEmpty: expected ${exp.replyEmpty ? 'an empty reply' : 'a reply'}, got ${j(o.replyText)}`);
  f.push(...checkReplies(exp.replies, o));
  if (exp.staged) f.push(...checkList('staged', exp.staged, o.staged, actionMatches, formatAction, formatAction));
  if (exp.committed)
    f.push(...checkList('committed', exp.committed, o.committed, actionMatches, formatAction, formatAction));
  if (exp.performed)
    f.push(...checkList('performed', exp.performed, o.performed, callMatches, formatExpectedCall, formatCall));
  f.push(...checkPending(exp.pending, o), ...checkRows(exp.rows, o));
  if (exp.apiCalls !== undefined && exp.apiCalls !== o.apiCalls.length)
    f.push(
      `apiCalls: expected ${exp.apiCalls} ManyChat calls for the contact, got ${o.apiCalls.length} ${list(o.apiCalls.map(formatCall))}`,
    );
  if (exp.deferred !== undefined && exp.deferred !== o.deferred)
    f.push(`deferred: expected ${exp.deferred}, got ${o.deferred}`);
  f.push(...checkWebhookMs(exp.webhookMs, o));
  if (exp.modelCalls !== undefined && exp.modelCalls !== o.modelCalls)
    f.push(`modelCalls: expected ${exp.modelCalls}, got ${o.modelCalls}`);
  for (const s of exp.promptContains ?? []) {
    if (!(o.lastPrompt ?? '').includes(s))
      f.push(
        `promptContains: expected the last model request to contain ${j(s)}${o.lastPrompt === null ? ', but there was no model call' : ''}`,
      );
  }
  f.push(...checkShortlist(exp.shortlist, o), ...checkModelTools(exp.modelTools, o), ...checkNotifications(exp, o));
  const turnIds = new Set(o.deliveries.map((d) => d.turnId).filter((t): t is string => !!t));
  if (exp.distinctTurns !== undefined && exp.distinctTurns !== turnIds.size)
    f.push(`distinctTurns: expected ${exp.distinctTurns}, got ${turnIds.size} ${list([...turnIds])}`);
  const dups = o.deliveries.filter((d) => d.duplicateOf).length;
  if (exp.duplicates !== undefined && exp.duplicates !== dups)
    f.push(`duplicates: expected ${exp.duplicates} deliveries answered as duplicates, got ${dups}`);
  if (exp.sameReply) {
    const texts = new Set(o.deliveries.map((d) => d.replyText));
    if (texts.size !== 1)
      f.push(`sameReply: expected one reply text over all deliveries, got ${list([...texts].map((t) => j(t)))}`);
  }
  return f;
}

function checkShortlist(exp: Expectation['shortlist'], o: Observed): string[] {
  if (!exp) return [];
  if (o.shortlistOff)
    return o.shortlist
      ? [
          `shortlist: the run turned the shortlist off, but the turn record has one (offered ${list(o.shortlist.offered)})`,
        ]
      : [];
  if (!o.shortlist)
    return [
      "shortlist: expected a shortlisted turn (the menu passes the tenant's maxToolTokens), but the turn record has no shortlist",
    ];
  const f: string[] = [];
  const offered = o.shortlist.offered;
  for (const name of exp.offers ?? [])
    if (!offered.includes(name)) f.push(`shortlist: expected ${j(name)} offered, got ${list(offered)}`);
  for (const name of exp.notOffered ?? [])
    if (offered.includes(name)) f.push(`shortlist: expected ${j(name)} not offered, got ${list(offered)}`);
  if (exp.widened !== undefined && exp.widened !== o.shortlist.widened)
    f.push(`shortlist: expected widened ${exp.widened}, got ${o.shortlist.widened}`);
  return f;
}

/** The base expectations, and (if given) at least one of the alternatives. */
export function checkExpectation(exp: Expectation, o: Observed): string[] {
  const { anyOf, performedTimeoutMs: _ignored, ...core } = exp;
  const failures = checkCore(core, o);
  if (anyOf?.length) {
    const results = anyOf.map((alt) => checkCore(alt, o));
    if (!results.some((r) => r.length === 0)) {
      failures.push(
        `anyOf: none of ${anyOf.length} alternatives held — ${results.map((r, i) => `(${i + 1}) ${r.join('; ')}`).join(' | ')}`,
      );
    }
  }
  return failures;
}

/** `modelTools`: the first model request's tool names hold every `offered` and no `notOffered`. */
function checkModelTools(exp: ExpectationCore['modelTools'], o: Observed): string[] {
  if (!exp) return [];
  if (!o.firstTools) return ['modelTools: expected a model request with tools, but there was none'];
  const got = new Set(o.firstTools);
  return [
    ...(exp.offered ?? [])
      .filter((t) => !got.has(t))
      .map((t) => `modelTools: expected ${j(t)} offered, the request offered ${list(o.firstTools!)}`),
    ...(exp.notOffered ?? [])
      .filter((t) => got.has(t))
      .map((t) => `modelTools: expected ${j(t)} not offered, the request offered ${list(o.firstTools!)}`),
  ];
}

/** `notifications`: exactly these reached the tenant's receiver, in order (type, substrings of the body). */
function checkNotifications(exp: Pick<ExpectationCore, 'notifications'>, o: Observed): string[] {
  if (!exp.notifications) return [];
  if (!o.notifications)
    return ['notifications: the turn tenant has no notification receiver (give the tenant `notify`)'];
  const got = o.notifications;
  const shown = list(got.map((n) => n.type));
  if (got.length !== exp.notifications.length)
    return [
      `notifications: expected ${exp.notifications.length} (${list(exp.notifications.map((n) => n.type))}), got ${got.length} ${shown}`,
    ];
  return exp.notifications.flatMap((want, i) => {
    const n = got[i]!;
    if (n.type !== want.type) return [`notifications[${i}]: expected type ${j(want.type)}, got ${j(n.type)}`];
    return (want.contains ?? [])
      .filter((s) => !n.body.includes(s))
      .map(
        (s) => `notifications[${i}]: expected the ${n.type} body to contain ${j(s)}, got ${j(n.body.slice(0, 300))}`,
      );
  });
}
