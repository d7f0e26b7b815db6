import { moveRowPastExpiry, runCron } from './advance-expiry.js';
import { turnForm, type CaseTurn, type Expectation } from './case-format.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';
import { checkExpectation } from './expectations.js';
import { callView, contactCalls, manyChatCursor, refusedSendContent, sentTexts } from './manychat-calls.js';
import type { Observed } from './observed.js';
import { outboxTimeoutFailure, settleOutbox } from './outbox-settle.js';
import { existingOutboxEntries, readNamedStatuses, readOutboxActions } from './product-state.js';
import { postDecision, resolveTarget } from './tenant-decisions.js';
import { emptyObservation, type CaseState, type TurnObservation } from './turn-observation.js';
import { repeatDelivery } from './webhook-deliveries.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A tenant decision turn: approve or reject an approval through the tenant API, or let one expire
 * (the row's time moved into the past, then the Worker's cron). Observed: the status of every
 * call, what the outbox then performed for the row's contact, and what the contact was told (the
 * texts sent to them).
 */
export async function runDecisionTurn(
  env: EvalEnvironment,
  world: CaseWorld,
  turn: CaseTurn,
  index: number,
  state: CaseState,
): Promise<TurnObservation> {
  const form = turnForm(turn) as 'approve' | 'reject' | 'expire';
  const exp: Expectation = env.live ? (turn.liveExpect ?? turn.expect) : turn.expect;
  const base = emptyObservation(turn, index, world.contacts.get(turn.contact)!, 'tenant-decision');

  const target = await resolveTarget(env, world, state, turn[form]!);
  if (typeof target === 'string') return { ...base, failures: [`${form}: ${target}`] };
  for (const fault of turn.faults) env.stack.manychat.injectFault({ ...fault, pageId: world.pageId });

  // The outbox entries a decision writes: the pinned call under the row id, a notice under `<id>.notice`.
  const entryIds = [target.id, `${target.id}.notice`];
  const before = await existingOutboxEntries(env, world.tenantId, entryIds);
  const cursor = manyChatCursor(env, world);
  let deliveries: Observed['deliveries'];
  if (form === 'expire') {
    const problem = await moveRowPastExpiry(env, world, target.id);
    if (problem) return { ...base, contactId: target.contactId, targetRowId: target.id, failures: [problem] };
    deliveries = await repeatDelivery(turn.deliveries, () => runCron(env));
  } else {
    deliveries = await repeatDelivery(turn.deliveries, () => postDecision(env, world, target.id, form));
  }

  const after = await existingOutboxEntries(env, world.tenantId, entryIds);
  const created = entryIds.filter((id) => after.has(id) && !before.has(id));
  const outbox = created.length ? await settleOutbox(env, target.id, turn.expect.performedTimeoutMs ?? 15_000) : null;
  if (!outbox) await sleep(150); // a call that should not happen would show up now

  const calls = contactCalls(env, world, target.contactId, cursor);
  const apiCalls = calls.map((c) => callView(c, world));
  const told = calls
    .filter((c) => c.status >= 200 && c.status < 300 && c.path.endsWith('/sendContent'))
    .flatMap(sentTexts);
  const observed: Observed = {
    ...base,
    deliveries,
    concurrent: turn.deliveries.mode === 'concurrent',
    replyText: told.join('\n'),
    committed: await readOutboxActions(env, world.tenantId, created),
    performed: apiCalls.filter((c) => c.status >= 200 && c.status < 300),
    apiCalls,
    rows: await readNamedStatuses(env, world.tenantId, state.namedRows),
  };
  const failures = [
    ...checkExpectation(exp, observed),
    ...outboxTimeoutFailure(outbox, Boolean(turn.expect.performed || turn.expect.apiCalls !== undefined)),
    // A notice (rejected, expired) goes to the contact's channel: ManyChat must take its shape there.
    ...refusedSendContent(world, calls),
  ];
  const first = deliveries[0];
  return {
    ...base,
    ...observed,
    contactId: target.contactId,
    targetRowId: target.id,
    outbox,
    latencyMs: first ? first.ms : null,
    failures,
  };
}
