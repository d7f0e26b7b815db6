/**
 * The arithmetic of `npm run bench:scale` (issue 34, goal 3), kept apart from the run so a wrong
 * formula fails a test: which keys a Redis holds per turn, per contact, per tenant, with and without
 * a TTL; the steady state those keys reach under retention; and what a month of turns costs at list
 * prices (each price with the page it was read from).
 */

/** What a key's count grows with: one a turn, one a contact, one a tenant, or one in all. */
export type KeyScope = 'turn' | 'contact' | 'tenant' | 'global';

// The tenant key builders (core/storage/keys.ts) by what names them: a turn's id or delivery, a
// contact's id, or the tenant alone. A class not listed counts as the tenant's (the cautious guess
// for a bounded structure).
// The tenant's turn log (`turns`) is one key, but it grows a member a turn up to its cap
// (TURN_LOG_LIMIT): counted as a turn's, an upper bound once the cap is reached.
const TURN_CLASSES = new Set([
  'turns',
  'turn',
  'claim',
  'claim-job',
  'outbox',
  'ledger',
  'pinned',
  'alert',
  'deletion',
]);
const CONTACT_CLASSES = new Set([
  'history',
  'handoff',
  'contact-turns',
  'contact-rows',
  'contact-page',
  'reply-order',
  'pending-call',
]);
// Rate-limit windows (guardrails/rate-limit.ts) sit under one prefix: `rl:c:<contact>` a contact's,
// `rl:seen:<delivery>` a delivery's, the rest the tenant's.
const RATE_LIMIT_SCOPES: Record<string, KeyScope> = { c: 'contact', seen: 'turn', replay: 'tenant' };

/** A key's class (`t:*:turn`, `t:*:rl`, `tenants`…) and what its count grows with. */
export function keyClass(key: string): { name: string; scope: KeyScope } {
  const parts = key.split(':');
  if (parts[0] === 't' && parts.length >= 3) {
    const kind = parts[2]!;
    if (kind === 'rl') {
      const sub = parts[3] ?? '';
      const scope = RATE_LIMIT_SCOPES[sub] ?? 'tenant';
      return { name: `t:*:rl:${sub in RATE_LIMIT_SCOPES ? sub : '*'}`, scope };
    }
    const suffix = parts.length > 4 && parts.at(-1) === 'status' ? ':status' : '';
    const scope: KeyScope = TURN_CLASSES.has(kind) ? 'turn' : CONTACT_CLASSES.has(kind) ? 'contact' : 'tenant';
    return { name: `t:*:${kind}${suffix}`, scope };
  }
  return { name: parts.length > 1 && /\d/.test(parts.at(-1)!) ? `${parts[0]}:*` : key, scope: 'global' };
}

export interface KeyClassTotals {
  name: string;
  scope: KeyScope;
  keys: number;
  /** MEMORY USAGE summed over the class's keys. */
  bytes: number;
  /** Of which keys with a TTL, and their bytes. */
  ttlKeys: number;
  ttlBytes: number;
  /** The longest remaining TTL seen in the class (seconds): what retention lets it live at most. */
  maxTtlSeconds: number;
}

/** Adds one key (its MEMORY USAGE and PTTL: -1 = no TTL) to the totals by class. */
export function tallyKey(totals: Map<string, KeyClassTotals>, key: string, bytes: number, pttlMs: number): void {
  const { name, scope } = keyClass(key);
  const row = totals.get(name) ?? { name, scope, keys: 0, bytes: 0, ttlKeys: 0, ttlBytes: 0, maxTtlSeconds: 0 };
  row.keys += 1;
  row.bytes += bytes;
  if (pttlMs >= 0) {
    row.ttlKeys += 1;
    row.ttlBytes += bytes;
    row.maxTtlSeconds = Math.max(row.maxTtlSeconds, Math.ceil(pttlMs / 1000));
  }
  totals.set(name, row);
}

/** `amount / count`, NaN for no count (a per-unit figure of nothing is not zero). */
export function perUnit(amount: number, count: number): number {
  return count > 0 ? amount / count : NaN;
}

export interface MemorySplit {
  /** Bytes of keys without a TTL: what stays however long nobody writes. */
  forever: number;
  /** Bytes of keys with a TTL: what retention removes. */
  expiring: number;
}

/** Forever and expiring bytes over the classes of one scope (or all). */
export function splitByTtl(rows: readonly KeyClassTotals[], scope?: KeyScope): MemorySplit {
  const mine = scope ? rows.filter((r) => r.scope === scope) : rows;
  const expiring = mine.reduce((a, r) => a + r.ttlBytes, 0);
  return { forever: mine.reduce((a, r) => a + r.bytes, 0) - expiring, expiring };
}

const DAY = 24 * 3600;
const MONTH_DAYS = 30;

export interface Population {
  tenants: number;
  contacts: number;
  turnsPerMonth: number;
}

/**
 * Bytes a Redis holds at steady state for a population, from what a run measured:
 * - keys without a TTL stay: per tenant (the tenant's own and global keys spread over the run's
 *   tenants), per contact, per turn (a forever key a turn would grow without bound, so it is
 *   counted over one month and flagged by the caller);
 * - a key with a TTL lives at most that TTL: with turns spread evenly over a 30-day month, a turn's
 *   expiring keys are alive for min(TTL, 30 days) / 30 days of a month's turns; a contact's
 *   expiring keys are counted for every contact (an upper bound: a contact silent for longer than
 *   the TTL holds none).
 */
export function steadyStateBytes(
  rows: readonly KeyClassTotals[],
  measured: { tenants: number; contacts: number; turns: number },
  target: Population,
): number {
  let total = 0;
  for (const r of rows) {
    const forever = r.bytes - r.ttlBytes;
    const liveShare = Math.min(r.maxTtlSeconds / DAY, MONTH_DAYS) / MONTH_DAYS;
    if (r.scope === 'turn') {
      total += perUnit(forever, measured.turns) * target.turnsPerMonth;
      total += perUnit(r.ttlBytes, measured.turns) * target.turnsPerMonth * liveShare;
    } else if (r.scope === 'contact') {
      total += perUnit(r.bytes, measured.contacts) * target.contacts;
    } else {
      total += perUnit(r.bytes, measured.tenants) * target.tenants;
    }
  }
  return total;
}

/** A list price with where it was read. */
export interface ListPrice {
  usd: number;
  per: number;
  unit: string;
  source: string;
}

/**
 * List prices as read from each source; a month's allowance where the plan includes one. Read
 * offline from stored copies of the pages (the dates are those the copies record), not checked
 * against the live pages: check them before relying on the figures.
 */
export const LIST_PRICES = {
  redisCommands: {
    usd: 0.2,
    per: 100_000,
    unit: 'commands',
    source:
      'upstash.com/pricing/redis, Pay as You Go "$0.2 per 100K commands" (as transcribed from that page on 2026-09-20 by api-evangelist/upstash plans/upstash-plans-pricing.yml, and on 2026-11-09 by docs.flexprice.io pricing-teardowns/upstash-pricing; already quoted in this file)',
  },
  redisStorageGbMonth: {
    usd: 0.25,
    per: 1,
    unit: 'GB-month beyond the first 1 GB',
    source:
      'upstash.com/pricing/redis, Pay as You Go "Storage: $0.25 per GB (first 1 GB free)" (as transcribed on 2026-09-20 by api-evangelist/upstash plans/upstash-plans-pricing.yml)',
  },
  qstashMessages: {
    usd: 1,
    per: 100_000,
    unit: 'messages',
    source:
      'upstash.com/pricing/qstash, Pay As You Go "$1.00 per 100K messages" (as transcribed by api-evangelist/qstash plans/qstash-plans-pricing.yml; the copy records no read date)',
  },
  workersRequests: {
    usd: 0.3,
    per: 1_000_000,
    unit: 'requests beyond 10 M a month',
    source:
      'developers.cloudflare.com/workflows/reference/pricing ("identical to Workers Standard pricing": 10 million requests included per month + $0.30 per additional million; no read date in the copy); the same figures as read from Cloudflare on 2026-08-03 in halideworks/onelight wiki "Pricing"',
  },
  workersCpuMs: {
    usd: 0.02,
    per: 1_000_000,
    unit: 'CPU ms beyond 30 M a month',
    source:
      'developers.cloudflare.com/workflows/reference/pricing (30 million CPU milliseconds included per month + $0.02 per additional million); same source as the requests',
  },
  workersBase: {
    usd: 5,
    per: 1,
    unit: 'month (Workers Paid)',
    source: 'halideworks/onelight wiki "Pricing" (Workers Paid "$5/mo base", read from Cloudflare on 2026-08-03)',
  },
  modelInput: {
    usd: 0.4,
    per: 1_000_000,
    unit: 'gpt-4.1-mini input tokens',
    source:
      'developers.openai.com/api/docs/pricing, as quoted in evals/prompt-cache.ts ($0.40 input, $0.10 cached input, $1.60 output per 1 M tokens)',
  },
  modelOutput: {
    usd: 1.6,
    per: 1_000_000,
    unit: 'gpt-4.1-mini output tokens',
    source: 'same as the input price',
  },
} as const satisfies Record<string, ListPrice>;

export const ALLOWANCES = {
  workersRequestsPerMonth: 10_000_000,
  workersCpuMsPerMonth: 30_000_000,
  redisStorageGbFree: 1,
} as const;

/** What one turn uses, as measured (a mix of turn kinds), and the month it is extrapolated to. */
export interface UsagePerTurn {
  redisCommands: number;
  qstashMessages: number;
  /** Requests the Worker answers per turn: the webhook plus each QStash delivery it receives. */
  workerRequests: number;
  workerCpuMs: number;
  inputTokens: number;
  outputTokens: number;
}

export interface CostLine {
  service: string;
  /** The marginal cost of 1,000 turns at the list unit price (no allowance). */
  per1000Turns: number;
  /** A month at the target volume, allowances and base fees included. */
  perMonth: number;
  arithmetic: string;
}

const usd = (units: number, p: ListPrice) => (units / p.per) * p.usd;

/**
 * The month's bill by service at `turnsPerMonth`, plus the cron's commands (`cronCommandsPerMonth`,
 * which do not scale with turns) and the steady-state storage.
 */
export function monthlyCost(
  use: UsagePerTurn,
  month: { turnsPerMonth: number; cronCommandsPerMonth: number; storageGb: number },
): CostLine[] {
  const p = LIST_PRICES;
  const n = month.turnsPerMonth;
  const commands = use.redisCommands * n + month.cronCommandsPerMonth;
  const requests = use.workerRequests * n;
  const cpuMs = use.workerCpuMs * n;
  const paidGb = Math.max(0, month.storageGb - ALLOWANCES.redisStorageGbFree);
  return [
    {
      service: 'Upstash Redis commands',
      per1000Turns: usd(use.redisCommands * 1000, p.redisCommands),
      perMonth: usd(commands, p.redisCommands),
      arithmetic: `(${use.redisCommands.toFixed(2)} × ${n} + cron ${month.cronCommandsPerMonth}) commands × $${p.redisCommands.usd} / 100K`,
    },
    {
      service: 'Upstash Redis storage',
      per1000Turns: NaN,
      perMonth: paidGb * p.redisStorageGbMonth.usd,
      arithmetic: `max(0, ${month.storageGb.toFixed(2)} GB − 1 GB free) × $${p.redisStorageGbMonth.usd}`,
    },
    {
      service: 'QStash messages',
      per1000Turns: usd(use.qstashMessages * 1000, p.qstashMessages),
      perMonth: usd(use.qstashMessages * n, p.qstashMessages),
      arithmetic: `${use.qstashMessages.toFixed(3)} × ${n} messages × $${p.qstashMessages.usd} / 100K`,
    },
    {
      service: 'Workers requests',
      per1000Turns: usd(use.workerRequests * 1000, p.workersRequests),
      perMonth: p.workersBase.usd + usd(Math.max(0, requests - ALLOWANCES.workersRequestsPerMonth), p.workersRequests),
      arithmetic: `$5 base + max(0, ${use.workerRequests.toFixed(3)} × ${n} − 10 M) × $0.30 / M`,
    },
    {
      service: 'Workers CPU',
      per1000Turns: usd(use.workerCpuMs * 1000, p.workersCpuMs),
      perMonth: usd(Math.max(0, cpuMs - ALLOWANCES.workersCpuMsPerMonth), p.workersCpuMs),
      arithmetic: `max(0, ${use.workerCpuMs.toFixed(2)} ms × ${n} − 30 M) × $0.02 / M`,
    },
    {
      service: 'Model (gpt-4.1-mini, uncached list price)',
      per1000Turns: usd(use.inputTokens * 1000, p.modelInput) + usd(use.outputTokens * 1000, p.modelOutput),
      perMonth: usd(use.inputTokens * n, p.modelInput) + usd(use.outputTokens * n, p.modelOutput),
      arithmetic: `(${use.inputTokens.toFixed(0)} in × $0.40 + ${use.outputTokens.toFixed(0)} out × $1.60) / M × ${n}`,
    },
  ];
}
