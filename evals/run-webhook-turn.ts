import { randomBytes } from 'node:crypto';
import { safetyIdentifierFor, type RecordedModelCall } from '../dev/model-sandbox.js';
import { turnForm, turnLabel, type CaseTurn, type Expectation } from './case-format.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';
import { checkExpectation } from './expectations.js';
import { callView, contactCalls, lastSeq, manyChatCursor, refusedSendContent, sentButtons } from './manychat-calls.js';
import { deadlineExpectation, deadlinePath, effectiveLatencies, resolveStep, turnLatencies } from './model-script.js';
import { responseBudgetMs } from './latency-model.js';
import type { Observed } from './observed.js';
import { outboxTimeoutFailure, settleOutbox } from './outbox-settle.js';
import { promptTokensOf } from './prompt-reuse.js';
import { planPress, type PressPlan } from './press-button.js';
import {
  existingOutboxEntries,
  readNamedStatuses,
  readOutboxActions,
  readPendingViews,
  readRecord,
} from './product-state.js';
import { resolveCaseTime } from './relative-time.js';
import { emptyObservation, type CaseState, type RunCaseOptions, type TurnObservation } from './turn-observation.js';
import { readToolNames, recordKind, scriptKind } from './turn-kind.js';
import { messageBody, postWebhook, repeatDelivery, type WebhookAnswer } from './webhook-deliveries.js';
import { dynamicBlockProblems } from '../dev/manychat-sandbox.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Scripts the turn's model steps (latencies fixed or drawn) and says which deadline path they put it on. */
export function scriptModel(
  env: EvalEnvironment,
  world: CaseWorld,
  turn: CaseTurn,
  index: number,
  opts: RunCaseOptions,
  sid: string,
): TurnObservation['scripted'] {
  if (!env.model || (turnForm(turn) === 'press' && !turn.model.length)) return null;
  const latencies = turnLatencies(turn, index, opts);
  const stepsRun = turn.expect.modelCalls ?? Math.min(2, turn.model.length);
  const { enabled, afterMs, freshCallMs } = world.config.hedging;
  const effective = effectiveLatencies(
    latencies,
    enabled ? { afterMs, freshCallMs } : null,
    turn.model.map((s) => s.error !== undefined),
    responseBudgetMs(world.config.deadlineMs),
  ).map((ms, i) => ({ ms, drawn: latencies[i]!.drawn }));
  const { path, budgetMs } = deadlinePath(effective, stepsRun, world.config.deadlineMs);
  env.model.script({
    safetyIdentifier: sid,
    steps: turn.model.map((s, i) => resolveStep(s, latencies[i]!.ms, latencies[i]!.hedgeMs)),
    mode: 'replace',
  });
  const modelled = latencies.slice(0, Math.max(1, stepsRun)).every((l) => l.drawn) && turn.model.length > 0;
  return {
    latencies: latencies.map((l) => l.ms),
    effective: effective.map((l) => l.ms),
    drawn: latencies.map((l) => l.drawn),
    modelled,
    budgetMs,
    path,
  };
}

/** The case's own expectations, or (a drawn latency past the budget) the deadline path's. */
export function judge(
  exp: Expectation,
  observed: Observed,
  scripted: TurnObservation['scripted'],
  world: CaseWorld,
): string[] {
  if (scripted?.path === 'deadline') {
    return checkExpectation(deadlineExpectation(world.config, exp), observed).map(
      (f) => `[model draw ${scripted.latencies.join('+')} ms ≥ budget ${scripted.budgetMs} ms: deadline path] ${f}`,
    );
  }
  if (scripted?.path === 'either') {
    const own = checkExpectation(exp, observed);
    const late = checkExpectation(deadlineExpectation(world.config, exp), observed);
    return own.length && late.length
      ? [
          `neither the case's expectations (${own.join('; ')}) nor the deadline path (${late.join('; ')}) held (model draw ${scripted.latencies.join('+')} ms near budget ${scripted.budgetMs} ms)`,
        ]
      : [];
  }
  return checkExpectation(exp, observed);
}

/**
 * A turn that reaches the Worker's ManyChat webhook: a message the contact writes (with the
 * tenant's secret header, as the request template sends it), or a button press (the payload of a
 * button the Worker issued, posted to its url with no secret, as ManyChat does).
 */
export async function runWebhookTurn(
  env: EvalEnvironment,
  world: CaseWorld,
  turn: CaseTurn,
  index: number,
  opts: RunCaseOptions,
  state: CaseState,
): Promise<TurnObservation> {
  const form = turnForm(turn);
  const contactId = world.contacts.get(turn.contact)!;
  const sid = safetyIdentifierFor(world.tenantId, contactId);
  const exp: Expectation = env.live
    ? (turn.liveExpect ?? { ...(turn.expect.status !== undefined ? { status: turn.expect.status } : {}) })
    : turn.expect;

  let press: PressPlan | null = null;
  if (form === 'press') {
    const plan = planPress(state, turn, index);
    if (typeof plan === 'string') return { ...emptyObservation(turn, index, contactId, 'other'), failures: [plan] };
    press = plan;
  }
  for (const fault of turn.faults) env.stack.manychat.injectFault({ ...fault, pageId: world.pageId });
  const scripted = scriptModel(env, world, turn, index, opts, sid);
  const cursor = manyChatCursor(env, world);
  const rowEntryBefore = press?.rowId
    ? await existingOutboxEntries(env, world.tenantId, [press.rowId])
    : new Set<string>();

  const timeoutMs = world.config.deadlineMs + 15_000;
  const sentAt = Date.now();
  let send: () => Promise<WebhookAnswer>;
  if (press) {
    const { button, body } = press;
    send = () => postWebhook(button.url, body, {}, timeoutMs);
  } else {
    const messageKey =
      turn.messageKey === false ? null : (turn.messageKey ?? `ev-${index}-${randomBytes(6).toString('hex')}`);
    const lastInteraction =
      turn.lastInteraction === undefined ? undefined : resolveCaseTime(turn.lastInteraction, new Date());
    const body = messageBody(turn, contactId, messageKey, lastInteraction, world.manyChatChannel);
    send = () =>
      postWebhook(
        `${env.workerUrl}/v1/manychat/${world.tenantId}`,
        body,
        { 'x-staged-agent-secret': world.secret },
        timeoutMs,
      );
  }
  const deliveries = await repeatDelivery(turn.deliveries, send);

  const primary = deliveries.find((d) => d.status === 200 && d.turnId && !d.duplicateOf) ?? null;
  const answered = primary ?? deliveries.find((d) => d.status === 200) ?? null;
  const primaryTurnId = primary?.turnId ?? deliveries.find((d) => d.turnId)?.turnId ?? null;
  const deferredHeader = primary?.deferred ?? false;
  const record = primaryTurnId
    ? await readRecord(env, world.tenantId, primaryTurnId, deferredHeader ? world.config.deadlineMs + 20_000 : 3000)
    : null;
  const deferred = deferredHeader || record?.deferred === true;

  // A Yes press writes an outbox entry under the row's id; the turn waits for it like for a turn's.
  const rowEntryNew =
    press?.rowId &&
    !rowEntryBefore.has(press.rowId) &&
    (await existingOutboxEntries(env, world.tenantId, [press.rowId])).has(press.rowId)
      ? press.rowId
      : null;
  const settleId = primaryTurnId && (record?.committed.length || deferred) ? primaryTurnId : rowEntryNew;
  const outbox = settleId ? await settleOutbox(env, settleId, turn.expect.performedTimeoutMs ?? 15_000) : null;
  if (!outbox) await sleep(150);

  const calls = contactCalls(env, world, contactId, cursor);
  const apiCalls = calls.map((call) => callView(call, world));
  const performed = apiCalls.filter((call) => call.status >= 200 && call.status < 300);
  // The buttons the contact now has: the answer's, or a deferred reply's (sent through the outbox).
  const deferredSend = deferred
    ? calls.find((c) => c.path.endsWith('/sendContent') && c.status >= 200 && c.status < 300 && sentButtons(c).length)
    : undefined;
  state.buttons.set(index, {
    contact: turn.contact,
    buttons: deferredSend ? sentButtons(deferredSend) : (answered?.buttons ?? []),
  });

  let modelCalls: RecordedModelCall[] = [];
  if (env.model) {
    modelCalls = env.model.calls({ safetyIdentifier: sid, since: state.cursors.get(sid) ?? 0 });
    if (modelCalls.length) state.cursors.set(sid, lastSeq(modelCalls));
  }
  // A hedge overlaps the call it races (whose served time already ends when the pair settles): model time is the primaries'.
  const hedgeCalls = modelCalls.filter((m) => m.hedge);
  modelCalls = modelCalls.filter((m) => !m.hedge);
  const modelMs = env.model
    ? modelCalls.reduce((a, m) => a + m.servedMs, 0)
    : (record?.steps ?? []).reduce((a, s) => a + s.ms, 0);
  const last = modelCalls[modelCalls.length - 1];

  const pending = record
    ? await readPendingViews(
        env,
        world.tenantId,
        [...(record.pendingConfirmation ? [record.pendingConfirmation] : []), ...(record.approvals ?? [])],
        record.turnId,
      )
    : [];
  (turn.expect.pending ?? []).forEach((p, i) => {
    if (p.as && pending[i]) state.namedRows.set(p.as, pending[i]!.id);
  });
  const observed: Observed = {
    deliveries: deliveries.map(({ buttons: _buttons, raw: _raw, ...d }) => d),
    concurrent: turn.deliveries.mode === 'concurrent',
    decision: record?.decision ?? null,
    decisionReason: record?.decisionReason ?? null,
    replyText: answered?.replyText ?? deliveries.find((d) => d.replyText !== null)?.replyText ?? '',
    deferred,
    staged: (record?.staged ?? []).map((a) => ({ kind: a.kind, tool: a.tool, args: a.args })),
    committed: record
      ? record.committed.map((a) => ({ kind: a.kind, tool: a.tool, args: a.args }))
      : rowEntryNew
        ? await readOutboxActions(env, world.tenantId, [rowEntryNew])
        : [],
    performed,
    apiCalls,
    pending,
    rows: await readNamedStatuses(env, world.tenantId, state.namedRows),
    modelCalls: env.model ? modelCalls.length : (record?.steps.length ?? 0),
    lastPrompt: last?.request ? JSON.stringify(last.request.messages ?? null) : null,
    shortlist: record?.shortlist ? { offered: record.shortlist.offered, widened: record.shortlist.widened } : null,
    shortlistOff: opts.shortlist === false,
  };

  const failures = judge(exp, observed, scripted, world);
  const runsATurn = !press?.rowId; // a Yes/No press is answered without a turn
  const wants200 = exp.statuses ? exp.statuses.every((s) => s === 200) : (exp.status ?? 200) === 200;
  if (runsATurn && wants200 && !primaryTurnId) failures.unshift('no delivery was answered with an x-turn-id');
  else if (runsATurn && wants200 && primaryTurnId && !record && !deferred)
    failures.unshift(`no turn record t:${world.tenantId}:turn:${primaryTurnId} in Redis`);
  failures.push(...outboxTimeoutFailure(outbox, Boolean(turn.expect.performed || turn.expect.apiCalls !== undefined)));
  // Every answer must be one a Dynamic Block on the contact's channel takes, and no sendContent may be refused for its shape.
  for (const d of deliveries)
    if (d.status === 200 && d.raw !== undefined)
      failures.push(
        ...dynamicBlockProblems(world.manyChatChannel, d.raw).map(
          (p) => `ManyChat (${world.manyChatChannel}) would refuse the webhook's answer: ${p}`,
        ),
      );
  failures.push(...refusedSendContent(world, calls));

  const latencyMs = answered ? answered.ms : null;
  const deferredReply = deferred ? performed.find((call) => call.call === 'sendContent' && call.at) : undefined;
  return {
    ...observed,
    index,
    form,
    text: turnLabel(turn),
    contactId,
    kind:
      world.manyChatChannel !== 'facebook'
        ? world.manyChatChannel
        : press?.rowId
          ? 'button-press'
          : recordKind(record, deferred),
    scriptKind: scriptKind(turn, readToolNames(world.config)),
    naive: opts.naiveTurns?.includes(index) ?? false,
    primaryTurnId,
    targetRowId: press?.rowId ?? null,
    notes: [
      ...(press
        ? [
            `pressed ${JSON.stringify(press.button.caption)} of turn ${press.fromTurn}'s reply${turn.tamper ? ` (forged: ${turn.tamper})` : ''}`,
          ]
        : []),
      ...(record?.notes ?? []),
    ],
    latencyMs,
    replyLatencyMs: !deferred ? latencyMs : deferredReply ? Date.parse(deferredReply.at!) - sentAt : null,
    modelMs,
    overheadMs: latencyMs !== null && !deferred ? latencyMs - modelMs : null,
    modelDetail: [...modelCalls, ...hedgeCalls].map((m) => ({
      source: m.source,
      status: m.status,
      aborted: m.aborted,
      servedMs: m.servedMs,
      hedge: m.hedge,
    })),
    hedgeCalls: hedgeCalls.length,
    scripted,
    record: record
      ? {
          timings: record.timings,
          redisRoundTrips: record.redisRoundTrips,
          modelId: record.modelId,
          deferred: record.deferred,
          ...(record.shortlist ? { shortlist: record.shortlist } : {}),
        }
      : null,
    promptTokens: modelCalls.reduce((a, m) => a + promptTokensOf(m.request), 0),
    outbox,
    failures,
  };
}
