import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { OutboxEntrySchema, type LedgerState } from '../../core/outbox-entry.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { PAGE_INBOX_APP_ID, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { devSecretKeys } from '../../dev/stack.js';
import { ledgerRowsFromReply } from '../../core/storage/outbox-store.js';
import { signHubBody } from '../../src/channels/messenger/hub-signature.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import type { FaultEnvironment } from './environment.js';
import type { RowOutcome } from './observe.js';
import type { Row } from './row.js';
import { scriptModel, sleep, type RowWorld, type SentMessage } from './world.js';

/**
 * Messenger rows (issue 31): Meta is answered 200 before a message's turn runs, so a storage
 * failure after the answer must not lose it. "Redis failing after the answer" is made exact with
 * the row's own redis-server: `maxmemory 1` (noeviction) lets every read through — the tenant
 * lookup answers — and refuses every write with OOM, so the claim fails after the 200. The message
 * must come back as a QStash inbound retry and run once when Redis takes writes again.
 */
const exec = promisify(execFile);

async function redisWrites(env: FaultEnvironment, on: boolean): Promise<void> {
  await exec('redis-cli', ['-p', String(env.redis.port), 'CONFIG', 'SET', 'maxmemory', on ? '0' : '1']);
}

export interface MessengerWorld extends RowWorld {
  appSecret: string;
  token: string;
}

let counter = 0;
export async function messengerWorld(
  env: FaultEnvironment,
  label: string,
  overrides: Partial<TenantConfigInput> = {},
): Promise<MessengerWorld> {
  const n = ++counter;
  const tenantId = `fm-m-${label}-${randomBytes(3).toString('hex')}${n}`;
  const pageId = String(8_800_000_000 + n * 1000 + Math.floor(Math.random() * 1000));
  const appSecret = `app-${randomBytes(8).toString('hex')}`;
  const token = `page-${randomBytes(8).toString('hex')}`;
  const adminSecret = `admin-${randomBytes(8).toString('hex')}`;
  const demo = demoTenantConfig(tenantId);
  const saved = await saveTenant(
    env.session,
    {
      ...demo,
      ...overrides,
      tenantId,
      messenger: { ...demo.messenger, handoverAppId: PAGE_INBOX_APP_ID, pages: [{ id: pageId }] },
    },
    {
      plain: {
        webhookSecret: `secret-${randomBytes(8).toString('hex')}`,
        adminSecret,
        manychatApiKey: '1:unused',
        messengerAppSecret: appSecret,
        messengerPageAccessToken: token,
      },
      keys: await devSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(`row ${label}: invalid tenant config: ${saved.problems.join('; ')}`);
  env.stack.manychat.addMessengerPage({ pageId, accessToken: token });
  return { tenantId, secret: '', adminSecret, pageId, config: saved.config, appSecret, token };
}

let psidCounter = 0;
export function newPsid(env: FaultEnvironment, world: MessengerWorld): string {
  const id = String(700_000_000_000 + ++psidCounter);
  env.stack.manychat.addSubscriber({ pageId: world.pageId, id });
  return id;
}

export async function postMessage(
  env: FaultEnvironment,
  world: MessengerWorld,
  psid: string,
  text: string,
): Promise<SentMessage> {
  const mid = `m_${randomBytes(8).toString('hex')}`;
  const now = Date.now();
  return postItem(env, world, psid, `mid:${mid}`, { timestamp: now, message: { mid, text } });
}

/** One messaging item of the contact, signed with the app secret; the same bytes each call (a Meta retry). */
export async function postItem(
  env: FaultEnvironment,
  world: MessengerWorld,
  psid: string,
  messageKey: string,
  item: Record<string, unknown>,
  raw = itemBody(world, psid, item),
): Promise<SentMessage> {
  const started = performance.now();
  const res = await fetch(`${env.workerUrl}/v1/messenger/${world.tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': await signHubBody(raw, world.appSecret) },
    body: raw,
    signal: AbortSignal.timeout(30_000),
  });
  const body = await res.text();
  return {
    contactId: psid,
    messageKey,
    answer: {
      status: res.status,
      ms: performance.now() - started,
      turnId: null,
      deferred: true,
      duplicateOf: null,
      storageDown: false,
      ...(res.status !== 200 ? { error: body.slice(0, 200) } : {}),
    },
  };
}

export function itemBody(world: MessengerWorld, psid: string, item: Record<string, unknown>): string {
  return JSON.stringify({
    object: 'page',
    entry: [
      {
        id: world.pageId,
        time: Date.now(),
        messaging: [{ sender: { id: psid }, recipient: { id: world.pageId }, ...item }],
      },
    ],
  });
}

const TERMINAL = new Set<LedgerState>(['done', 'unknown', 'dead']);

/** The row's turns, their entries and ledgers, and the Send API messages the sandbox performed. */
export async function observeMessenger(
  env: FaultEnvironment,
  world: MessengerWorld,
  messages: SentMessage[],
  timeoutMs: number,
): Promise<RowOutcome> {
  const keys = tenantKeys(world.tenantId);
  const read = async () => {
    const ids = (await env.session.one((r) => r.zrange(keys.turnLog, 0, -1))).map(String);
    const records = (ids.length ? await env.session.pipeline((p) => ids.forEach((id) => p.get(keys.turn(id)))) : [])
      .map((r) => parseJson(r) as TurnRecord | null)
      .filter((r): r is TurnRecord => !!r);
    const entries = [];
    for (const record of records) {
      const [rawEntry, rawLedger] = await env.session.pipeline((p) => {
        p.get(keys.outbox(record.turnId));
        p.hgetall(keys.ledger(record.turnId));
      });
      const entry = OutboxEntrySchema.safeParse(parseJson(rawEntry));
      if (!entry.success) continue;
      const ledger = Object.fromEntries([...ledgerRowsFromReply(rawLedger)].map(([id, row]) => [id, row.state]));
      entries.push({ entry: entry.data, ledger });
    }
    return { records, entries };
  };
  const accepted = messages.filter((m) => m.answer.status === 200);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await read().catch(() => null);
    const done =
      s &&
      accepted.every((m) => s.records.some((r) => r.messageKey === m.messageKey)) &&
      s.entries.every(({ entry, ledger }) => entry.actions.every((a) => TERMINAL.has(ledger[a.id] ?? 'pending')));
    if (done || Date.now() > until) break;
    await sleep(250);
  }
  await sleep(1500); // a stray second send would show up now
  const { records, entries } = await read();
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
  const sends = env.stack.manychat
    .calls({ api: 'messenger', pageId: world.pageId })
    .filter((c) => c.status === 200 && (c.body as { message?: unknown } | null)?.message !== undefined);
  for (const m of messages) {
    const turns = records.filter((r) => r.messageKey === m.messageKey);
    if (m.answer.status !== 200 && turns.length === 0) {
      out.lost++;
      out.details.push(`lost: ${m.messageKey} answered ${m.answer.status} and never ran`);
    } else if (turns.length === 0) {
      out.lost++;
      out.details.push(`lost: ${m.messageKey} (PSID ${m.contactId}) answered 200 and has no turn`);
    }
    if (turns.length > 1) {
      out.duplicated += turns.length - 1;
      out.details.push(`duplicated: ${m.messageKey} ran ${turns.length} turns`);
    }
    const got = sends.filter((c) => (c.body as { recipient?: { id?: string } }).recipient?.id === m.contactId).length;
    if (got > 1) {
      out.duplicated += got - 1;
      out.details.push(`duplicated: PSID ${m.contactId} got ${got} replies`);
    }
  }
  for (const { entry, ledger } of entries)
    for (const action of entry.actions) {
      out.actions++;
      const state = ledger[action.id] ?? 'pending';
      if (state === 'done') out.performed++;
      else if (state === 'unknown' || state === 'dead') out[state]++;
      else {
        out.lost++;
        out.details.push(`lost: ${action.kind} ${entry.turnId}/${action.id} still ${state} at the end`);
      }
    }
  out.performedKinds = out.performed ? `send_content×${out.performed}` : '—';
  return out;
}

const redisFailsAfterAnswer: Row = {
  name: 'Messenger: Redis failing after the answer (3 messages)',
  exclusive: true,
  expected: {
    performed: 4,
    unknown: 0,
    dead: 0,
    says: '200 at once; each claim fails (writes refused), kept as a QStash inbound retry, run once when Redis writes again: one reply each',
  },
  async run(env) {
    const world = await messengerWorld(env, 'after-answer');
    const reply = (text: string) => ({ reply: { text, escalate: false, confidence: 0.9, reason: 'row' } });
    // A first message while Redis answers: the isolate now holds the tenant.
    const warm = newPsid(env, world);
    scriptModel(env, world, warm, [reply('Hello!')]);
    const messages: SentMessage[] = [await postMessage(env, world, warm, 'Hello there')];
    await sleep(1500);
    const psids = [newPsid(env, world), newPsid(env, world), newPsid(env, world)];
    for (const p of psids) scriptModel(env, world, p, [reply('Our classes start at 7.')]);
    await redisWrites(env, false);
    const notes: string[] = [];
    try {
      for (const p of psids) messages.push(await postMessage(env, world, p, 'When do classes start?'));
      await sleep(3000);
      const turns = await env.session.one((r) => r.zcard(tenantKeys(world.tenantId).turnLog));
      notes.push(`turns while writes were refused: ${turns} (the warm-up's)`);
    } finally {
      await redisWrites(env, true);
    }
    // Kept deliveries come back from QStash 15 s later (INBOUND_RETRY_DELAY_SECONDS).
    return { messages, outcome: await observeMessenger(env, world, messages, 90_000), notes };
  },
};

const PRICE_LIST = 'Drop-in class 15 EUR; ten-class card 120 EUR; monthly unlimited 89 EUR.';

/** A confirm-once prepared message (Messenger can perform it): the turn asks, the contact's Yes sends it. */
function pressTenant(): Partial<TenantConfigInput> {
  const demo = demoTenantConfig('x');
  return {
    contents: [{ name: 'price_list', description: 'the studio prices', text: PRICE_LIST, keywords: ['prices'] }],
    tools: [
      ...(demo.tools ?? []),
      { name: 'send_info', kind: 'send_content', description: "Send one of the studio's prepared messages." },
    ],
    manifest: { ...demo.manifest, send_info: { effect: 'write', confirm: 'once' } },
  };
}

type SendCall = {
  status: number;
  body: {
    recipient?: { id?: string };
    message?: { text?: string; quick_replies?: { title: string; payload: string }[] };
  };
};

function sendsTo(env: FaultEnvironment, world: MessengerWorld, psid: string): SendCall[] {
  return (env.stack.manychat.calls({ api: 'messenger', pageId: world.pageId }) as unknown as SendCall[]).filter(
    (c) => c.status === 200 && c.body?.message !== undefined && c.body.recipient?.id === psid,
  );
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | null | undefined): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = probe();
    if (got !== null && got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const pressFailsAfterLookup: Row = {
  name: 'Messenger: a button press (quick reply Yes, postback Yes) with Redis failing after the tenant lookup',
  exclusive: true,
  expected: {
    performed: 2,
    unknown: 0,
    dead: 0,
    says: "a press is answered before Meta's 200: 503 until its Yes is stored (Meta retries the same bytes), then 200; each Yes sends its pinned message and its 'Confirmed' notice once, retries and a redelivery after the 200 change nothing",
  },
  async run(env) {
    const world = await messengerWorld(env, 'press', pressTenant());
    const psids = [newPsid(env, world), newPsid(env, world)];
    const notes: string[] = [];
    // Each contact is asked (a turn staging the confirm-once message) while Redis answers; its Yes payload comes from the Send API sandbox.
    const payloads: string[] = [];
    for (const p of psids) {
      scriptModel(env, world, p, [
        {
          calls: [{ tool: 'send_info', input: { content: 'price_list' } }],
          reply: { text: 'Shall I send you our price list?', escalate: false, confidence: 0.9, reason: 'row' },
        },
      ]);
      const asked = await postMessage(env, world, p, 'what are your prices?');
      if (asked.answer.status !== 200) throw new Error(`the question was answered ${asked.answer.status}`);
      const ask = await until(`the question's Yes/No reply to ${p}`, 30_000, () =>
        sendsTo(env, world, p).find((c) => c.body.message?.quick_replies?.length),
      );
      payloads.push(ask.body.message!.quick_replies!.find((q) => q.title === 'Yes')!.payload);
    }
    // The same bytes every time: Meta retries the batch it was not answered 200 for, and may redeliver one it was.
    const presses = psids.map((p, i) => {
      const mid = `m_press_${randomBytes(6).toString('hex')}`;
      const at = Date.now();
      const item =
        i === 0
          ? { timestamp: at, message: { mid, text: 'Yes', quick_reply: { payload: payloads[i]! } } }
          : { timestamp: at, postback: { mid, title: 'Yes', payload: payloads[i]! } };
      return { psid: p, mid, raw: itemBody(world, p, item), item };
    });
    const send = (x: (typeof presses)[number]) => postItem(env, world, x.psid, `mid:${x.mid}`, x.item, x.raw);
    const messages: SentMessage[] = [];
    await redisWrites(env, false);
    try {
      for (const x of presses) messages.push(await send(x), await send(x)); // the first try and Meta's retry
      await sleep(1500);
      notes.push(
        `while writes were refused: ${messages.map((m) => m.answer.status).join(', ')}; price lists sent: ${psids.map((p) => sendsTo(env, world, p).filter((c) => c.body.message?.text === PRICE_LIST).length).join(', ')}`,
      );
    } finally {
      await redisWrites(env, true);
    }
    for (const x of presses) messages.push(await send(x)); // Meta's retry, Redis writing again
    for (const x of presses) messages.push(await send(x)); // a redelivery after the 200
    const out: RowOutcome = {
      accepted: messages.filter((m) => m.answer.status === 200).length,
      turns: 0,
      actions: psids.length,
      performed: 0,
      unknown: 0,
      dead: 0,
      lost: 0,
      duplicated: 0,
      repeats: 0,
      performedKinds: '',
      details: [],
    };
    const deadline = Date.now() + 30_000;
    const priceLists = () =>
      psids.map((p) => sendsTo(env, world, p).filter((c) => c.body.message?.text === PRICE_LIST).length);
    while (priceLists().some((n) => n === 0) && Date.now() < deadline) await sleep(250);
    await sleep(2000); // a stray second send would show up now
    priceLists().forEach((n, i) => {
      const p = psids[i]!;
      if (n === 0) {
        out.lost++;
        out.details.push(`lost: PSID ${p}'s Yes (${i === 0 ? 'quick reply' : 'postback'}) never sent the price list`);
      } else out.performed++;
      if (n > 1) {
        out.duplicated += n - 1;
        out.details.push(`duplicated: PSID ${p} got the price list ${n} times`);
      }
    });
    // The contact is told what became of the press ("Confirmed: …"), once: a notice never sent is lost too.
    psids.forEach((p, i) => {
      const told = sendsTo(env, world, p).filter((c) => c.body.message?.text?.startsWith('Confirmed')).length;
      if (told === 0) {
        out.lost++;
        out.details.push(`lost: PSID ${p} was never told its Yes (${i === 0 ? 'quick reply' : 'postback'}) was done`);
      } else if (told > 1) {
        out.duplicated += told - 1;
        out.details.push(`duplicated: PSID ${p} was told ${told} times`);
      }
    });
    const last = messages.slice(-2 * presses.length);
    if (last.some((m) => m.answer.status !== 200))
      out.details.push(`not accepted once Redis wrote: ${last.map((m) => m.answer.status).join(', ')}`);
    // What else each contact was told after its question (the press's answer notice).
    notes.push(
      `other messages after the question: ${psids
        .map((p) =>
          JSON.stringify(
            sendsTo(env, world, p)
              .slice(1)
              .map((c) => c.body.message?.text ?? '')
              .filter((t) => t !== PRICE_LIST),
          ),
        )
        .join(', ')}`,
    );
    out.performedKinds = out.performed ? `send_content×${out.performed}` : '—';
    return { messages, outcome: out, notes };
  },
};

export const messengerRows: Row[] = [redisFailsAfterAnswer, pressFailsAfterLookup];
