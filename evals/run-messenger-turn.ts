import { createHmac, randomBytes } from 'node:crypto';
import { safetyIdentifierFor, type RecordedModelCall } from '../dev/model-sandbox.js';
import { deliveryKeyDigest, tenantKeys } from '../core/storage/keys.js';
import type { TurnRecord } from '../core/turn-record.js';
import { turnForm, turnLabel, type CaseTurn, type Expectation } from './case-format.js';
import { checkExpectation } from './expectations.js';
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

/** The claim key of a contact's `mid` under a tenant. */
async function claimKey(tenantId: string, contactId: string, mid: string): Promise<string> {
  return tenantKeys(tenantId).claim(await deliveryKeyDigest(contactId, `mid:${mid}`));
}

/** The turn a `mid` was claimed by: the claim names it (the webhook answers before the turn runs). */
async function claimedTurnId(
  env: EvalEnvironment,
  tenantId: string,
  contactId: string,
  mid: string,
  waitMs: number,
): Promise<string | null> {
  const key = await claimKey(tenantId, contactId, mid);
  const until = Date.now() + waitMs;
  for (;;) {
    const owner = await env.session.one((r) => r.get(key));
    if (typeof owner === 'string' && owner) return owner;
    if (Date.now() > until) return null;
    await sleep(50);
  }
}

/** The world as one of the case's tenants sees it (its id, secrets, config, page). */
export function tenantView(world: CaseWorld, alias: string): CaseWorld {
  const t = world.tenants.get(alias);
  if (!t) throw new Error(`no case tenant "${alias}"`);
  return { ...world, ...t };
}

/** Where a turn's event goes and how it is signed: the tenant's own URL, or the Meta app's one URL. */
function target(env: EvalEnvironment, world: CaseWorld, turn: CaseTurn): { url: string; appSecret: string } {
  const appSecret = world.messenger!.appSecret;
  if (turn.via === 'app') return { url: `${env.workerUrl}/v1/messenger/app/${world.messengerAppId}`, appSecret };
  return { url: `${env.workerUrl}/v1/messenger/${world.tenantId}`, appSecret };
}

/** The page an entry names: the turn tenant's own, another case tenant's, or one nobody lists. */
function pageOf(world: CaseWorld, turn: CaseTurn): string {
  if (turn.page === undefined) return world.pageId;
  if (turn.page === 'unowned') return world.unownedPageId;
  return world.tenants.get(turn.page)!.pageId;
}

/** Every Send API / Graph call for the contact on any page of the case since the cursors. */
function callsOnEveryPage(env: EvalEnvironment, world: CaseWorld, contactId: string, cursors: Map<string, number>) {
  return [...world.tenants.values()].flatMap((t) =>
    contactCalls(env, { ...world, ...t }, contactId, cursors.get(t.pageId) ?? 0).map((call) =>
      callView(call, { config: t.config }),
    ),
  );
}

function pageCursors(env: EvalEnvironment, world: CaseWorld): Map<string, number> {
  return new Map([...world.tenants.values()].map((t) => [t.pageId, manyChatCursor(env, { ...world, ...t })]));
}

/** Model calls for the contact under every case tenant since the case's cursors (advancing them). */
function modelCallsOf(
  env: EvalEnvironment,
  world: CaseWorld,
  contactId: string,
  state: CaseState,
): RecordedModelCall[] {
  if (!env.model) return [];
  return [...world.tenants.values()].flatMap((t) => {
    const sid = safetyIdentifierFor(t.tenantId, contactId);
    const calls = env.model!.calls({ safetyIdentifier: sid, since: state.cursors.get(sid) ?? 0 });
    if (calls.length) state.cursors.set(sid, lastSeq(calls));
    return calls;
  });
}

/** The tool names a model request offered (OpenAI chat format: `tools[].function.name`). */
function toolNames(request: RecordedModelCall['request'] | undefined): string[] | null {
  const tools = (request as { tools?: { function?: { name?: unknown }; name?: unknown }[] } | undefined)?.tools;
  if (!request) return null;
  return (tools ?? []).map((t) => String(t.function?.name ?? t.name ?? ''));
}

/**
 * A text turn through the Messenger webhook, as Meta sends it: the event signed with the app
 * secret over the exact bytes posted, to the turn tenant's callback URL or the Meta app's one URL
 * (`via`), for the turn tenant's page or another (`page`). The webhook answers 200 at once; the
 * turn is found by its claim — under the turn tenant, and under no other case tenant — its reply
 * read where the contact gets it: the Send API sandbox, once the outbox has sent it. Its latency
 * (the per-kind row `messenger`) is the time to that reply. `ignored`: no tenant claimed it, no
 * model call, nothing sent.
 */
export async function runMessengerTurn(
  env: EvalEnvironment,
  caseWorld: CaseWorld,
  turn: CaseTurn,
  index: number,
  opts: RunCaseOptions,
  state: CaseState,
): Promise<TurnObservation> {
  const world = tenantView(caseWorld, turn.tenant);
  const contactId = world.contacts.get(turn.contact)!;
  if (!world.messenger)
    return {
      ...emptyObservation(turn, index, contactId, 'messenger'),
      failures: ['the case world has no Messenger secrets'],
    };
  if (turnForm(turn) === 'release') return runRelease(env, world, turn, index, state);
  const sid = safetyIdentifierFor(world.tenantId, contactId);
  const exp: Expectation = env.live
    ? (turn.liveExpect ?? { ...(turn.expect.status !== undefined ? { status: turn.expect.status } : {}) })
    : turn.expect;
  for (const fault of turn.faults) env.stack.manychat.injectFault({ ...fault, pageId: world.pageId });
  // No webhook deadline on Messenger (answered at once): the turn's budget is the background one.
  const budgetWorld: CaseWorld = { ...world, config: { ...world.config, deadlineMs: world.config.asyncDeadlineMs } };
  const scripted = scriptModel(env, budgetWorld, turn, index, opts, sid);
  const cursors = pageCursors(env, world);
  const notifyCursor = env.notifications.cursor();

  const mid = typeof turn.messageKey === 'string' ? turn.messageKey : `m_ev-${index}-${randomBytes(6).toString('hex')}`;
  const sentAt = Date.now();
  const timestamp =
    turn.lastInteraction === undefined ? sentAt : Date.parse(resolveCaseTime(turn.lastInteraction, new Date()));
  const body = messengerEvent(pageOf(world, turn), contactId, mid, turn.text!, timestamp);
  const { url, appSecret } = target(env, world, turn);
  // postWebhook sends JSON.stringify(body): the bytes signed here.
  const signature = `sha256=${createHmac('sha256', appSecret).update(JSON.stringify(body)).digest('hex')}`;
  const deliveries = await repeatDelivery(turn.deliveries, () =>
    postWebhook(url, body, { 'x-hub-signature-256': signature }, 10_000),
  );

  const answered = deliveries.some((d) => d.status === 200);
  const turnId = answered && !exp.ignored ? await claimedTurnId(env, world.tenantId, contactId, mid, 5000) : null;
  const record: TurnRecord | null = turnId
    ? await readRecord(env, world.tenantId, turnId, world.config.asyncDeadlineMs + 5000)
    : null;
  const outbox =
    turnId && record?.committed.length
      ? await settleOutbox(env, turnId, turn.expect.performedTimeoutMs ?? 15_000)
      : null;
  // An ignored event: long enough for a turn that should not exist to have claimed and called the model.
  if (!outbox) await sleep(exp.ignored ? 1500 : 150);

  const apiCalls = callsOnEveryPage(env, world, contactId, cursors);
  const performed = apiCalls.filter((call) => call.status >= 200 && call.status < 300);
  const reply = performed.find((call) => call.call === 'sendContent');

  let modelCalls = modelCallsOf(env, world, contactId, state);
  // A hedge overlaps the call it races: model time and call counts are the primaries' (as for ManyChat turns).
  const hedgeCalls = modelCalls.filter((m) => m.hedge);
  modelCalls = modelCalls.filter((m) => !m.hedge);
  const last = modelCalls[modelCalls.length - 1];
  const notifyTenant = world.config.notifications.approvals?.url === env.notifications.urlFor(world.tenantId);
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
    firstTools: toolNames(modelCalls[0]?.request),
    ...(notifyTenant
      ? {
          notifications: env.notifications
            .received(world.tenantId, notifyCursor)
            .map(({ type, body }) => ({ type, body })),
        }
      : {}),
  };
  const failures = judge(exp, observed, scripted, budgetWorld);
  failures.push(...(await placement(env, caseWorld, turn, contactId, mid, turnId, Boolean(exp.ignored))));
  if (exp.ignored) failures.push(...ignoredFailures(observed));
  const wants200 = exp.statuses ? exp.statuses.every((s) => s === 200) : (exp.status ?? 200) === 200;
  if (wants200 && !exp.ignored && !turnId) failures.unshift(`no turn claimed mid ${mid}`);
  else if (wants200 && !exp.ignored && !record) failures.unshift(`no turn record t:${world.tenantId}:turn:${turnId}`);
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

/**
 * Where the event landed: under the turn tenant alone. Another case tenant's claim of the `mid`
 * (the contact answered with the wrong tenant's persona, in its log) always fails; so does the
 * turn tenant's own claim of an event it should have ignored, or a claimed turn missing from its
 * turn log.
 */
async function placement(
  env: EvalEnvironment,
  world: CaseWorld,
  turn: CaseTurn,
  contactId: string,
  mid: string,
  turnId: string | null,
  ignored: boolean,
): Promise<string[]> {
  const failures: string[] = [];
  for (const [alias, t] of world.tenants) {
    if (alias === turn.tenant && !ignored) continue;
    const key = await claimKey(t.tenantId, contactId, mid);
    const owner = await env.session.one((r) => r.get(key));
    if (typeof owner === 'string' && owner)
      failures.push(`tenant "${alias}" (${t.tenantId}) claimed mid ${mid} as turn ${owner}: the event is not its own`);
  }
  if (turnId && !ignored) {
    const own = world.tenants.get(turn.tenant)!;
    const score = await env.session.one((r) => r.zscore(tenantKeys(own.tenantId).turnLog, turnId));
    if (score === null || score === undefined)
      failures.push(`turn ${turnId} is not in tenant "${turn.tenant}"'s turn log`);
  }
  return failures;
}

/** `ignored`: nothing of the event ran — no model call and no Send API call for the contact on any page. */
function ignoredFailures(o: Observed): string[] {
  return [
    ...(o.modelCalls ? [`ignored: expected no model call, got ${o.modelCalls}`] : []),
    ...(o.apiCalls.length
      ? [`ignored: expected nothing sent to the contact, got ${o.apiCalls.map((c) => c.call).join(', ')}`]
      : []),
  ];
}

/**
 * A `release` turn: the tenant releases the contact's handoff through the tenant API (its admin
 * secret), which ends the silence and takes a thread handed to the inbox back
 * (`take_thread_control`, shown as `takeThreadControl`). Kind *tenant decision* (no model).
 */
async function runRelease(
  env: EvalEnvironment,
  world: CaseWorld,
  turn: CaseTurn,
  index: number,
  state: CaseState,
): Promise<TurnObservation> {
  const contactId = world.contacts.get(turn.contact)!;
  const cursors = pageCursors(env, world);
  const url = `${env.workerUrl}/v1/tenants/${world.tenantId}/contacts/${encodeURIComponent(contactId)}/release`;
  const deliveries = await repeatDelivery(turn.deliveries, () =>
    postWebhook(url, {}, { authorization: `Bearer ${world.adminSecret}` }, 10_000),
  );
  await sleep(150);
  const apiCalls = callsOnEveryPage(env, world, contactId, cursors);
  const base = emptyObservation(turn, index, contactId, 'tenant-decision');
  const observed: Observed = {
    ...base,
    deliveries: deliveries.map(({ buttons: _buttons, ...d }) => ({ ...d, replyText: null })),
    concurrent: turn.deliveries.mode === 'concurrent',
    performed: apiCalls.filter((call) => call.status >= 200 && call.status < 300),
    apiCalls,
    modelCalls: modelCallsOf(env, world, contactId, state).length,
  };
  const failures = checkExpectation(turn.expect, observed);
  const ms = deliveries[0]?.ms ?? null;
  return { ...base, ...observed, latencyMs: ms, notes: [`release ${url.replace(env.workerUrl, '')}`], failures };
}
