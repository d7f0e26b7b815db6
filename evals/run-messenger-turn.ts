import { createHmac, randomBytes } from 'node:crypto';
import { safetyIdentifierFor, type RecordedModelCall } from '../dev/model-sandbox.js';
import { deliveryKeyDigest, tenantKeys } from '../core/storage/keys.js';
import type { TurnRecord } from '../core/turn-record.js';
import { turnLabel, type CaseTurn, type Expectation } from './case-format.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';
import { callView, contactCalls, lastSeq, manyChatCursor } from './manychat-calls.js';
import type { Observed } from './observed.js';
import { outboxTimeoutFailure, settleOutbox } from './outbox-settle.js';
import { readRecord } from './product-state.js';
import { resolveCaseTime } from './relative-time.js';
import { judge, scriptModel } from './run-webhook-turn.js';
import { emptyObservation, type CaseState, type RunCaseOptions, type TurnObservation } from './turn-observation.js';
import { readToolNames, scriptKind } from './turn-kind.js';
import { postWebhook, repeatDelivery } from './webhook-deliveries.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The event Meta posts for one text message of the contact (docs/protocols.md, Messenger). */
export function messengerEvent(
  pageId: string,
  psid: string,
  mid: string,
  text: string,
  timestamp: number,
): Record<string, unknown> {
  return {
    object: 'page',
    entry: [
      {
        id: pageId,
        time: Date.now(),
        messaging: [{ sender: { id: psid }, recipient: { id: pageId }, timestamp, message: { mid, text } }],
      },
    ],
  };
}

/** The turn a `mid` was claimed by: the claim names it (the webhook answers before the turn runs). */
async function claimedTurnId(
  env: EvalEnvironment,
  world: CaseWorld,
  contactId: string,
  mid: string,
  waitMs: number,
): Promise<string | null> {
  const key = tenantKeys(world.tenantId).claim(await deliveryKeyDigest(contactId, `mid:${mid}`));
  const until = Date.now() + waitMs;
  for (;;) {
    const owner = await env.session.one((r) => r.get(key));
    if (typeof owner === 'string' && owner) return owner;
    if (Date.now() > until) return null;
    await sleep(50);
  }
}

/**
 * A text turn through the Messenger webhook, as Meta sends it: the event signed with the case
 * tenant's app secret over the exact bytes posted. The webhook answers 200 at once; the turn is
 * found by its claim, its reply read where the contact gets it — the Send API sandbox, once the
 * outbox has sent it. Its latency (the per-kind row `messenger`) is the time to that reply.
 */
export async function runMessengerTurn(
  env: EvalEnvironment,
  world: CaseWorld,
  turn: CaseTurn,
  index: number,
  opts: RunCaseOptions,
  state: CaseState,
): Promise<TurnObservation> {
  const contactId = world.contacts.get(turn.contact)!;
  if (!world.messenger)
    return {
      ...emptyObservation(turn, index, contactId, 'messenger'),
      failures: ['the case world has no Messenger secrets'],
    };
  const sid = safetyIdentifierFor(world.tenantId, contactId);
  const exp: Expectation = env.live
    ? (turn.liveExpect ?? { ...(turn.expect.status !== undefined ? { status: turn.expect.status } : {}) })
    : turn.expect;
  for (const fault of turn.faults) env.stack.manychat.injectFault({ ...fault, pageId: world.pageId });
  // No webhook deadline on Messenger (answered at once): the turn's budget is the background one.
  const budgetWorld: CaseWorld = { ...world, config: { ...world.config, deadlineMs: world.config.asyncDeadlineMs } };
  const scripted = scriptModel(env, budgetWorld, turn, index, opts, sid);
  const cursor = manyChatCursor(env, world);

  const mid = typeof turn.messageKey === 'string' ? turn.messageKey : `m_ev-${index}-${randomBytes(6).toString('hex')}`;
  const sentAt = Date.now();
  const timestamp =
    turn.lastInteraction === undefined ? sentAt : Date.parse(resolveCaseTime(turn.lastInteraction, new Date()));
  const body = messengerEvent(world.pageId, contactId, mid, turn.text!, timestamp);
  // postWebhook sends JSON.stringify(body): the bytes signed here.
  const signature = `sha256=${createHmac('sha256', world.messenger.appSecret).update(JSON.stringify(body)).digest('hex')}`;
  const url = `${env.workerUrl}/v1/messenger/${world.tenantId}`;
  const deliveries = await repeatDelivery(turn.deliveries, () =>
    postWebhook(url, body, { 'x-hub-signature-256': signature }, 10_000),
  );

  const turnId = deliveries.some((d) => d.status === 200)
    ? await claimedTurnId(env, world, contactId, mid, 5000)
    : null;
  const record: TurnRecord | null = turnId
    ? await readRecord(env, world.tenantId, turnId, world.config.asyncDeadlineMs + 5000)
    : null;
  const outbox =
    turnId && record?.committed.length
      ? await settleOutbox(env, turnId, turn.expect.performedTimeoutMs ?? 15_000)
      : null;
  if (!outbox) await sleep(150);

  const apiCalls = contactCalls(env, world, contactId, cursor).map((call) => callView(call, world));
  const performed = apiCalls.filter((call) => call.status >= 200 && call.status < 300);
  const reply = performed.find((call) => call.call === 'sendContent');

  let modelCalls: RecordedModelCall[] = [];
  if (env.model) {
    modelCalls = env.model.calls({ safetyIdentifier: sid, since: state.cursors.get(sid) ?? 0 });
    if (modelCalls.length) state.cursors.set(sid, lastSeq(modelCalls));
  }
  // A hedge overlaps the call it races: model time and call counts are the primaries' (as for ManyChat turns).
  const hedgeCalls = modelCalls.filter((m) => m.hedge);
  modelCalls = modelCalls.filter((m) => !m.hedge);
  const last = modelCalls[modelCalls.length - 1];
  const observed: Observed = {
    // The webhook names no turn (it answers before the turn runs): the claim does.
    deliveries: deliveries.map(({ buttons: _buttons, ...d }) => ({ ...d, replyText: null })),
    concurrent: turn.deliveries.mode === 'concurrent',
    decision: record?.decision ?? null,
    decisionReason: record?.decisionReason ?? null,
    replyText: reply?.text ?? '',
    // The webhook never carries a Messenger reply: "deferred" (answered before the turn) does not apply.
    deferred: false,
    staged: (record?.staged ?? []).map((a) => ({ kind: a.kind, tool: a.tool, args: a.args })),
    committed: (record?.committed ?? []).map((a) => ({ kind: a.kind, tool: a.tool, args: a.args })),
    performed,
    apiCalls,
    pending: [],
    rows: {},
    modelCalls: env.model ? modelCalls.length : (record?.steps.length ?? 0),
    lastPrompt: last?.request ? JSON.stringify(last.request.messages ?? null) : null,
  };
  const failures = judge(exp, observed, scripted, budgetWorld);
  const wants200 = exp.statuses ? exp.statuses.every((s) => s === 200) : (exp.status ?? 200) === 200;
  if (wants200 && !turnId) failures.unshift(`no turn claimed mid ${mid}`);
  else if (wants200 && !record) failures.unshift(`no turn record t:${world.tenantId}:turn:${turnId}`);
  failures.push(...outboxTimeoutFailure(outbox, Boolean(turn.expect.performed || turn.expect.apiCalls !== undefined)));

  const replyLatencyMs = reply?.at ? Date.parse(reply.at) - sentAt : null;
  const modelMs = env.model
    ? modelCalls.reduce((a, m) => a + m.servedMs, 0)
    : (record?.steps ?? []).reduce((a, s) => a + s.ms, 0);
  return {
    ...observed,
    index,
    form: 'text',
    text: turnLabel(turn),
    contactId,
    kind: 'messenger',
    scriptKind: scriptKind(turn, readToolNames(world.config)),
    naive: false,
    primaryTurnId: turnId,
    targetRowId: null,
    notes: [`Messenger mid ${mid}`, ...(record?.notes ?? [])],
    latencyMs: replyLatencyMs,
    replyLatencyMs,
    modelMs,
    overheadMs: null,
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
        }
      : null,
    outbox,
    failures,
  };
}
