import { fc, it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { newContact, seedTenant } from '../support/workers-env.js';
import { turnRecord } from '../workers/turn-helpers.js';
import { inboundCase } from './arbitraries/manychat-body.js';
import { alwaysStagingModel, fuzzApp, tenantFootprint, webhookRequest } from './fuzz-app.js';
import { fuzzParams, PROPERTY_TIMEOUT_MS, quietRoutineLogs, StatusTally } from './fuzz-run.js';

/**
 * Inbound ManyChat bodies, fuzzed (types, lone surrogates escaped and raw, BOM, invalid UTF-8,
 * nesting around and far past the limit, sizes a few bytes either side of 64 KB) against the real
 * app in workerd, a real Redis and the QStash stand-in. Properties: never 5xx; the answer is the
 * one the case's own oracle expects (200, 400 or 413); a refused body starts no turn, stages and
 * publishes nothing and leaves no claim; an accepted one runs a turn that does not fail inside.
 * The model stages the brochure whatever it is asked, so a body that slipped through would show.
 */
const tally = new StatusTally('manychat-inbound');
const auth = new StatusTally('manychat-inbound-auth');
let tenant: { tenantId: string; secret: string };
const app = fuzzApp(alwaysStagingModel());

let restoreLogs: () => void;
beforeAll(async () => {
  restoreLogs = quietRoutineLogs();
  tenant = await seedTenant();
});
afterAll(() => {
  restoreLogs();
  tally.print();
  auth.print();
});

async function observe() {
  await app.settle();
  return { turns: app.turnsStarted, published: app.published, footprint: await tenantFootprint(tenant.tenantId) };
}

describe('inbound ManyChat bodies', () => {
  it.prop([inboundCase], fuzzParams(300))(
    'never 5xx; 200, 400 or 413 as the oracle says; a refused body touches nothing',
    async (c) => {
      const before = await observe();
      const res = await app.fetch(webhookRequest(tenant.tenantId, c.bytes, { 'x-staged-agent-secret': tenant.secret }));
      const text = await res.text();
      tally.record(res.status, c.label);
      expect(res.status, `${c.why}: ${text.slice(0, 300)}`).toBeLessThan(500);
      expect(res.status, `${c.why}: ${text.slice(0, 300)}`).toBe(c.expected);
      if (res.status !== 200) {
        expect((JSON.parse(text) as { error: unknown }).error, c.why).toEqual(expect.any(String));
        expect(await observe(), c.why).toEqual(before);
        return;
      }
      expect((JSON.parse(text) as { version: string }).version).toBe('v2');
      expect(res.headers.get('x-storage-down'), c.why).toBeNull();
      const turnId = res.headers.get('x-turn-id');
      if (turnId && !res.headers.get('x-duplicate-of') && !res.headers.get('x-turn-deferred')) {
        const record = await turnRecord(tenant.tenantId, turnId);
        expect(record.decision, `${c.why}: ${record.decisionReason}`).not.toBe('error');
      }
    },
    PROPERTY_TIMEOUT_MS,
  );

  const outsider = fc.oneof(
    fc.constant({ kind: 'missing secret' }),
    fc.string({ maxLength: 40 }).map((s) => ({ kind: 'wrong secret', secret: `x${s}` })),
    fc
      .stringMatching(/^[a-z0-9][a-z0-9-]{0,62}$/)
      .map((t) => ({ kind: 'unknown tenant', tenant: `nx-${t}`.slice(0, 63) })),
    fc
      .constantFrom('DEMO', 'a_b', '-a', 'a'.repeat(64), 'a%2Fb', '%F0%9F%99%82', 't%00')
      .map((t) => ({ kind: 'malformed tenant', tenant: t })),
  );

  it.prop([inboundCase, outsider], fuzzParams(100))(
    "without this tenant's secret: 401 (or 413 over the limit), whatever the body, and nothing happens",
    async (c, who) => {
      const before = await observe();
      const headers: Record<string, string> =
        'secret' in who
          ? { 'x-staged-agent-secret': who.secret }
          : who.kind === 'missing secret'
            ? {}
            : { 'x-staged-agent-secret': tenant.secret };
      const res = await app.fetch(webhookRequest('tenant' in who ? who.tenant : tenant.tenantId, c.bytes, headers));
      auth.record(res.status, who.kind);
      expect(res.status, `${who.kind} ${c.why}`).toBe(c.expected === 413 ? 413 : 401);
      expect(await observe()).toEqual(before);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('afterwards the tenant still answers a normal message at once (offline rule model), and no claim is left open', async () => {
    const offline = fuzzApp('offline');
    const contactId = await newContact();
    const res = await offline.fetch(
      webhookRequest(
        tenant.tenantId,
        JSON.stringify({ contact: { id: contactId }, text: 'What are your opening hours?' }),
        { 'x-staged-agent-secret': tenant.secret },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-turn-deferred')).toBeNull();
    const record = await turnRecord(tenant.tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toContain('Monday to Saturday');
    await offline.settle();
    expect((await tenantFootprint(tenant.tenantId)).openClaims).toBe(0);
  });
});
