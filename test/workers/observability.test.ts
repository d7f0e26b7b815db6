import { afterEach, describe, expect, it, vi } from 'vitest';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { appWith } from './turn-helpers.js';
import { tenantApi } from './tenant-api.js';
import type { TurnLogLine } from '../../src/observability/turn-log.js';

const MESSAGE = 'Please send the brochure, my code word is xylophone-marmalade';
const REPLY = 'Here comes the brochure, enjoy the zebra-quokka edition';

/** Every structured turn line written while `run` ran. */
async function turnLines(run: () => Promise<void>): Promise<{ lines: TurnLogLine[]; raw: string[] }> {
  const raw: string[] = [];
  const spy = vi
    .spyOn(console, 'log')
    .mockImplementation((...args: unknown[]) => void raw.push(args.map(String).join(' ')));
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  const lines = raw
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as TurnLogLine)
    .filter((l) => l.event === 'turn');
  return { lines, raw };
}

afterEach(() => vi.restoreAllMocks());

describe('one structured log line per turn', () => {
  it('names the turn, tenant, decision, latency, model calls and round trips, and never the words or a secret', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply(REPLY) },
    ]);
    let turnId = '';
    const { lines, raw } = await turnLines(async () => {
      const res = await appWith(model).post(tenantId, secret, {
        contact: { id: contactId, first_name: 'Philomena' },
        text: MESSAGE,
      });
      expect(res.status).toBe(200);
      turnId = res.headers.get('x-turn-id') ?? '';
    });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({
      event: 'turn',
      turnId,
      tenantId,
      decision: 'pass',
      guardrail: null,
      deferred: false,
      modelCalls: 1,
      modelId: 'scripted-model',
      staged: 1,
      committed: 1,
      written: true,
    });
    expect(line.latencyMs).toBeGreaterThanOrEqual(0);
    expect(line.redisRoundTrips.beforeModel).toBeGreaterThan(0);
    expect(line.redisRoundTrips.afterModel).toBeGreaterThan(0);
    const everything = raw.join('\n');
    for (const forbidden of [
      MESSAGE,
      'xylophone',
      REPLY,
      'zebra-quokka',
      'Philomena',
      contactId,
      secret,
      adminSecret,
    ]) {
      expect(everything).not.toContain(forbidden);
    }
  });

  it('names the guardrail that decided a veto', async () => {
    const vetoing: Guardrail = { name: 'always-veto', check: () => ({ outcome: 'veto', reason: 'test veto' }) };
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([{ reply: reply('fine') }]);
    const { lines } = await turnLines(async () => {
      await appWith(model, [...defaultGuardrails, vetoing]).post(tenantId, secret, {
        contact: { id: contactId },
        text: 'hello there',
      });
    });
    expect(lines.map((l) => [l.decision, l.guardrail])).toEqual([['veto', 'always-veto']]);
  });
});

describe('GET /v1/tenants/:t/turns/:turnId', () => {
  async function oneTurn() {
    const tenant = await seedTenant();
    const contactId = await newContact();
    const res = await appWith(scriptedModel([{ reply: reply('Hello!') }])).post(tenant.tenantId, tenant.secret, {
      contact: { id: contactId },
      text: 'hi',
    });
    return { ...tenant, contactId, turnId: res.headers.get('x-turn-id') ?? '' };
  }

  it('returns the stored turn record to the tenant admin', async () => {
    const { tenantId, adminSecret, contactId, turnId } = await oneTurn();
    const res = await tenantApi(tenantId, adminSecret, 'GET', `/turns/${turnId}`);
    expect(res.status).toBe(200);
    const record = (await res.json()) as {
      turnId: string;
      tenantId: string;
      contactId: string;
      decision: string;
      reply: { text: string };
    };
    expect(record).toMatchObject({ turnId, tenantId, contactId, decision: 'pass', reply: { text: 'Hello!' } });
  });

  it('answers 404 naming the turn when there is none', async () => {
    const { tenantId, adminSecret } = await oneTurn();
    const res = await tenantApi(tenantId, adminSecret, 'GET', '/turns/turn_00000000000000000000000000000000');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toContain('turn_00000000000000000000000000000000');
    const odd = await tenantApi(tenantId, adminSecret, 'GET', `/turns/${encodeURIComponent('a b/c')}`);
    expect(odd.status).toBe(404);
  });

  it('is tenant-scoped and admin-only', async () => {
    const { tenantId, secret, turnId } = await oneTurn();
    const other = await seedTenant();
    // Another tenant's admin, on its own path, does not see this tenant's turn.
    expect((await tenantApi(other.tenantId, other.adminSecret, 'GET', `/turns/${turnId}`)).status).toBe(404);
    // …nor on this tenant's path with its own secret; nor does the webhook secret open it.
    expect((await tenantApi(tenantId, other.adminSecret, 'GET', `/turns/${turnId}`)).status).toBe(401);
    expect((await tenantApi(tenantId, secret, 'GET', `/turns/${turnId}`)).status).toBe(401);
  });
});
