import { describe, expect, it } from 'vitest';
import {
  keyClass,
  monthlyCost,
  perUnit,
  splitByTtl,
  steadyStateBytes,
  tallyKey,
  type KeyClassTotals,
  type UsagePerTurn,
} from './scale-model.js';

const DAY_MS = 24 * 3600 * 1000;

describe('keyClass', () => {
  it('names a tenant key by its kind and says what it grows with', () => {
    expect(keyClass('t:acme:turn:turn_abc')).toEqual({ name: 't:*:turn', scope: 'turn' });
    expect(keyClass('t:acme:turns')).toEqual({ name: 't:*:turns', scope: 'turn' });
    expect(keyClass('t:acme:history:4242')).toEqual({ name: 't:*:history', scope: 'contact' });
    expect(keyClass('t:acme:config')).toEqual({ name: 't:*:config', scope: 'tenant' });
    expect(keyClass('t:acme:pinned:p_1:status')).toEqual({ name: 't:*:pinned:status', scope: 'turn' });
  });

  it('splits the rate-limit prefix by whose window it is', () => {
    expect(keyClass('t:acme:rl:c:4242:123')).toEqual({ name: 't:*:rl:c', scope: 'contact' });
    expect(keyClass('t:acme:rl:seen:abc')).toEqual({ name: 't:*:rl:seen', scope: 'turn' });
    expect(keyClass('t:acme:rl:acme:991')).toEqual({ name: 't:*:rl:*', scope: 'tenant' });
  });

  it('keeps a global key, and folds a global key with an id into one class', () => {
    expect(keyClass('tenants')).toEqual({ name: 'tenants', scope: 'global' });
    expect(keyClass('messenger:page:1000001')).toEqual({ name: 'messenger:*', scope: 'global' });
  });
});

describe('tallies and divisions', () => {
  it('adds bytes by class and keeps TTL’d bytes and the longest TTL apart', () => {
    const totals = new Map<string, KeyClassTotals>();
    tallyKey(totals, 't:a:turn:1', 1000, 30 * DAY_MS);
    tallyKey(totals, 't:b:turn:2', 500, 29 * DAY_MS);
    tallyKey(totals, 't:a:config', 4000, -1);
    const rows = [...totals.values()];
    expect(totals.get('t:*:turn')).toMatchObject({ keys: 2, bytes: 1500, ttlKeys: 2, ttlBytes: 1500 });
    expect(totals.get('t:*:turn')!.maxTtlSeconds).toBe(30 * 24 * 3600);
    expect(splitByTtl(rows)).toEqual({ forever: 4000, expiring: 1500 });
    expect(splitByTtl(rows, 'tenant')).toEqual({ forever: 4000, expiring: 0 });
  });

  it('divides, and a division by no count is NaN rather than zero', () => {
    expect(perUnit(1500, 3)).toBe(500);
    expect(perUnit(1500, 0)).toBeNaN();
  });
});

describe('steadyStateBytes', () => {
  const row = (r: Partial<KeyClassTotals> & Pick<KeyClassTotals, 'name' | 'scope'>): KeyClassTotals => ({
    keys: 1,
    bytes: 0,
    ttlKeys: 0,
    ttlBytes: 0,
    maxTtlSeconds: 0,
    ...r,
  });
  const measured = { tenants: 10, contacts: 1000, turns: 2000 };
  const target = { tenants: 100, contacts: 5000, turnsPerMonth: 60_000 };

  it('scales tenant keys by tenants and contact keys by contacts', () => {
    const rows = [
      row({ name: 't:*:config', scope: 'tenant', bytes: 10_000 }),
      row({ name: 't:*:history', scope: 'contact', bytes: 3_000, ttlBytes: 3_000, maxTtlSeconds: 7 * 86400 }),
    ];
    // 1,000 bytes a tenant × 100 + 3 bytes a contact × 5,000.
    expect(steadyStateBytes(rows, measured, target)).toBe(100_000 + 15_000);
  });

  it('keeps a turn’s expiring keys for min(TTL, 30 days) of a month’s turns', () => {
    const ttl = (days: number) =>
      row({ name: 't:*:turn', scope: 'turn', bytes: 4_000, ttlBytes: 4_000, maxTtlSeconds: days * 86400 });
    // 2 bytes a turn × 60,000 turns a month × (3 / 30).
    expect(steadyStateBytes([ttl(3)], measured, target)).toBeCloseTo(12_000, 6);
    // A TTL past the month holds the month, not more.
    expect(steadyStateBytes([ttl(45)], measured, target)).toBeCloseTo(120_000, 6);
  });

  it('counts a turn’s forever keys over one month', () => {
    const rows = [row({ name: 't:*:turns', scope: 'turn', bytes: 2_000 })];
    expect(steadyStateBytes(rows, measured, target)).toBe(60_000);
  });
});

describe('monthlyCost', () => {
  const use: UsagePerTurn = {
    redisCommands: 10,
    qstashMessages: 0.5,
    workerRequests: 1.5,
    workerCpuMs: 10,
    inputTokens: 1500,
    outputTokens: 50,
  };
  const lines = monthlyCost(use, { turnsPerMonth: 10_000_000, cronCommandsPerMonth: 86_400, storageGb: 3 });
  const line = (s: string) => lines.find((l) => l.service.startsWith(s))!;

  it('prices Redis commands at $0.20 per 100K, the cron included in the month', () => {
    expect(line('Upstash Redis commands').per1000Turns).toBeCloseTo(0.02, 10);
    expect(line('Upstash Redis commands').perMonth).toBeCloseTo(((100_000_000 + 86_400) / 100_000) * 0.2, 6);
  });

  it('prices storage beyond the first free GB', () => {
    expect(line('Upstash Redis storage').perMonth).toBeCloseTo(2 * 0.25, 10);
  });

  it('prices QStash messages at $1 per 100K', () => {
    expect(line('QStash').per1000Turns).toBeCloseTo(0.005, 10);
    expect(line('QStash').perMonth).toBeCloseTo(50, 6);
  });

  it('prices Workers with the $5 base and the included 10 M requests and 30 M CPU ms', () => {
    // 15 M requests: 5 M over the allowance at $0.30 / M.
    expect(line('Workers requests').perMonth).toBeCloseTo(5 + 1.5, 6);
    // 100 M CPU ms: 70 M over at $0.02 / M.
    expect(line('Workers CPU').perMonth).toBeCloseTo(1.4, 6);
  });

  it('prices the model per token, input and output apart', () => {
    // (1,500 × 0.40 + 50 × 1.60) / 1 M per turn.
    expect(line('Model').per1000Turns).toBeCloseTo(0.68, 10);
    expect(line('Model').perMonth).toBeCloseTo(6_800, 6);
  });
});
