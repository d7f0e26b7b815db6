import { OutboxEntrySchema, type LedgerState, type OutboxEntry } from '../../core/outbox-entry.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { RecordedCall } from '../../dev/manychat-sandbox.js';
import { ledgerRowsFromReply } from '../../core/storage/outbox-store.js';
import type { FaultEnvironment } from './environment.js';
import { sleep, type RowWorld, type SentMessage } from './world.js';

/**
 * What became of a row's messages, read from the product's own records (turn records, outbox
 * entries, the per-action ledger, the tenant's dead-letter list) and checked against what the
 * ManyChat sandbox actually received:
 *
 * - performed: ledger `done`, and ManyChat got the call;
 * - unknown / dead: terminal without a performance, each listed in the tenant's dead letters;
 * - lost: an answered message with no turn, a message answered with an error, an action not
 *   terminal at the end, a `done` ManyChat never received, an unknown/dead missing from the list;
 * - duplicated: a second turn for one delivery, a send (not idempotent) ManyChat performed twice,
 *   or a call ManyChat performed that no committed action accounts for;
 * - repeats: an idempotent action (tag, field) ManyChat performed more than once — allowed.
 */
export interface RowOutcome {
  accepted: number;
  turns: number;
  actions: number;
  performed: number;
  unknown: number;
  dead: number;
  lost: number;
  duplicated: number;
  repeats: number;
  /** Kinds performed, e.g. "send_flow×1". */
  performedKinds: string;
  details: string[];
}

const PATH_OF: Record<string, string> = {
  send_flow: '/fb/sending/sendFlow',
  send_content: '/fb/sending/sendContent',
  add_tag: '/fb/subscriber/addTagByName',
  remove_tag: '/fb/subscriber/removeTagByName',
  set_field: '/fb/subscriber/setCustomFieldByName',
};
const TERMINAL = new Set<LedgerState>(['done', 'unknown', 'dead']);

interface Snapshot {
  records: TurnRecord[];
  entries: { entry: OutboxEntry; ledger: Record<string, LedgerState> }[];
}

async function snapshot(env: FaultEnvironment, world: RowWorld, contacts: Set<string>): Promise<Snapshot> {
  const keys = tenantKeys(world.tenantId);
  const turnIds = (await env.session.one((r) => r.zrange(keys.turnLog, 0, -1))).filter(
    (t): t is string => typeof t === 'string',
  );
  const raws = turnIds.length ? await env.session.pipeline((p) => turnIds.forEach((id) => p.get(keys.turn(id)))) : [];
  const records = raws
    .map((r) => parseJson(r) as TurnRecord | null)
    .filter((r): r is TurnRecord => !!r && contacts.has(r.contactId));
  const entries: Snapshot['entries'] = [];
  for (const record of records) {
    const [rawEntry, rawLedger] = await env.session.pipeline((p) => {
      p.get(keys.outbox(record.turnId));
      p.hgetall(keys.ledger(record.turnId));
    });
    const entry = OutboxEntrySchema.safeParse(parseJson(rawEntry));
    if (!entry.success) continue;
    const ledger: Record<string, LedgerState> = {};
    for (const [id, row] of ledgerRowsFromReply(rawLedger)) ledger[id] = row.state;
    entries.push({ entry: entry.data, ledger });
  }
  return { records, entries };
}

/**
 * The webhook's `message_key` as the product keys the delivery (src/channels/manychat/message-key.ts):
 * `k:<message_key>:<digest of the text>` — the digest makes a repeated key with other words a new turn.
 */
const isDeliveryOf = (m: SentMessage, key: string) =>
  key.startsWith(`k:${m.messageKey}:`) && /^[0-9a-f]{32}$/.test(key.slice(`k:${m.messageKey}:`.length));
const turnsOf = (records: TurnRecord[], m: SentMessage) =>
  records.filter((r) => r.contactId === m.contactId && isDeliveryOf(m, r.messageKey));

function settled(s: Snapshot, accepted: SentMessage[]): boolean {
  const turnFor = (m: SentMessage) => turnsOf(s.records, m).length > 0;
  return (
    accepted.every(turnFor) &&
    s.entries.every(({ entry, ledger }) => entry.actions.every((a) => TERMINAL.has(ledger[a.id] ?? 'pending')))
  );
}

async function deadLetterIds(env: FaultEnvironment, world: RowWorld): Promise<Set<string>> {
  const res = await fetch(`${env.workerUrl}/v1/outbox/dead-letters/${world.tenantId}`, {
    headers: { authorization: `Bearer ${world.adminSecret}` },
  });
  if (!res.ok) return new Set();
  const body = (await res.json()) as { deadLetters: { turnId: string; actionId: string }[] };
  return new Set(body.deadLetters.map((d) => `${d.turnId}/${d.actionId}`));
}

const performedCall = (c: RecordedCall) => c.status === 200 && c.outcome !== 'error';
const subscriberOf = (c: RecordedCall) => String((c.body as { subscriber_id?: unknown } | null)?.subscriber_id ?? '');

/** Waits (at most `timeoutMs`) until every answered message has its turn and every action is terminal, then reads. */
export async function observeRow(
  env: FaultEnvironment,
  world: RowWorld,
  messages: SentMessage[],
  timeoutMs: number,
): Promise<RowOutcome> {
  const contacts = new Set(messages.map((m) => m.contactId));
  const accepted = messages.filter((m) => m.answer.status === 200);
  const until = Date.now() + timeoutMs;
  // A read that fails while polling (Redis just back, a slow machine) is a reason to look again, not a verdict.
  const isSettled = () =>
    snapshot(env, world, contacts).then(
      (s) => settled(s, accepted),
      () => false,
    );
  while (!(await isSettled()) && Date.now() < until) await sleep(250);
  await sleep(1500); // a stray second performance would show up now
  const { records, entries } = await snapshot(env, world, contacts);
  const listed = await deadLetterIds(env, world);
  const calls = env.stack.manychat
    .calls({ pageId: world.pageId })
    .filter((c) => contacts.has(subscriberOf(c)) && performedCall(c));
  const out: RowOutcome = {
    accepted: accepted.length,
    turns: records.length,
    actions: 0,
    performed: 0,
    unknown: 0,
    dead: 0,
    lost: 0,
    duplicated: 0,
    repeats: 0,
    performedKinds: '',
    details: [],
  };
  const lose = (why: string) => (out.lost++, out.details.push(`lost: ${why}`));
  const duplicate = (n: number, why: string) => ((out.duplicated += n), out.details.push(`duplicated: ${why}`));

  for (const m of messages) {
    if (m.answer.status !== 200)
      lose(`message ${m.messageKey} answered ${m.answer.status} ${m.answer.error ?? ''}`.trim());
  }
  for (const m of accepted) {
    const turns = turnsOf(records, m);
    if (turns.length === 0) lose(`message ${m.messageKey} (contact ${m.contactId}) has no turn`);
    if (turns.length > 1) duplicate(turns.length - 1, `message ${m.messageKey} ran ${turns.length} turns`);
  }
  const kinds = new Map<string, number>();
  const expectedCalls = new Map<string, { kind: string; idempotent: boolean; count: number }>();
  for (const { entry, ledger } of entries) {
    for (const action of entry.actions) {
      out.actions++;
      const state = ledger[action.id] ?? 'pending';
      const key = `${entry.contactId} ${PATH_OF[action.kind] ?? action.kind}`;
      const slot = expectedCalls.get(key) ?? { kind: action.kind, idempotent: action.idempotent, count: 0 };
      expectedCalls.set(key, { ...slot, count: slot.count + 1 });
      const performed = calls.filter((c) => `${subscriberOf(c)} ${c.path}` === key).length;
      if (state === 'done') {
        out.performed++;
        kinds.set(action.kind, (kinds.get(action.kind) ?? 0) + 1);
        if (performed === 0 && PATH_OF[action.kind])
          lose(`${action.kind} ${entry.turnId}/${action.id} is done in the ledger but ManyChat never performed it`);
      } else if (state === 'unknown' || state === 'dead') {
        out[state]++;
        if (!listed.has(`${entry.turnId}/${action.id}`))
          lose(`${action.kind} ${entry.turnId}/${action.id} is ${state} but not in the dead letters`);
      } else lose(`${action.kind} ${entry.turnId}/${action.id} still ${state} at the end`);
    }
  }
  const byKey = new Map<string, number>();
  for (const c of calls)
    byKey.set(`${subscriberOf(c)} ${c.path}`, (byKey.get(`${subscriberOf(c)} ${c.path}`) ?? 0) + 1);
  for (const [key, n] of byKey) {
    const expected = expectedCalls.get(key);
    if (!expected) duplicate(n, `ManyChat performed ${key} ${n}× with no committed action for it`);
    else if (n > expected.count && !expected.idempotent)
      duplicate(n - expected.count, `${expected.kind} performed ${n}× for ${expected.count} action(s) (${key})`);
    else if (n > expected.count) out.repeats += n - expected.count;
  }
  out.performedKinds = [...kinds].map(([k, n]) => `${k}×${n}`).join(' ') || '—';
  return out;
}
