import { it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { parseTenantConfig, type TenantConfig } from '../../core/tenant/tenant-config.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { seedTenant } from '../support/workers-env.js';
import { turnRecord } from '../workers/turn-helpers.js';
import { applyEdit, configCase, pathsOf } from './arbitraries/config-mutation.js';
import { fuzzApp, webhookRequest } from './fuzz-app.js';
import { fuzzParams, PROPERTY_TIMEOUT_MS, quietRoutineLogs, StatusTally } from './fuzz-run.js';

/**
 * Tenant configs through the tenant API: random mutations of the demo config (every default
 * filled in, so every setting is a target). Properties: never 5xx; a PUT is either 200 — and the
 * stored config is what it answered, a GET returns it, a second PUT of it is a fixed point, and
 * the webhook still answers a normal message under it without a failing stage — or 400 with a
 * list of problems, and the stored config unchanged.
 */
const tally = new StatusTally('tenant-config');
const app = fuzzApp('offline');
let tenant: { tenantId: string; secret: string; adminSecret: string };
let contactCounter = 0;

const parsedDemo = parseTenantConfig(demoTenantConfig('fuzz-config'));
if (!parsedDemo.ok) throw new Error(`the demo config does not validate: ${parsedDemo.problems.join('; ')}`);
const BASE: TenantConfig = parsedDemo.config;
const BASE_PATHS = pathsOf(BASE);

let restoreLogs: () => void;
beforeAll(async () => {
  restoreLogs = quietRoutineLogs();
  tenant = await seedTenant();
});
afterAll(() => {
  restoreLogs();
  tally.print();
});

function tenantApi(method: 'GET' | 'PUT', body?: string): Promise<Response> {
  return app.fetch(
    new Request(`http://worker.test/v1/tenants/${tenant.tenantId}/config`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.adminSecret}` },
      ...(body !== undefined ? { body } : {}),
    }),
  );
}

async function storedConfig(): Promise<unknown> {
  const res = await tenantApi('GET');
  expect(res.status).toBe(200);
  return res.json();
}

/** A normal message under the current config: answered (200), and no stage of its turn failed. */
async function answersANormalMessage(why: string): Promise<void> {
  const contactId = String(7_700_000_000 + contactCounter++);
  const res = await app.fetch(
    webhookRequest(
      tenant.tenantId,
      JSON.stringify({ contact: { id: contactId }, text: 'What are your opening hours?' }),
      { 'x-staged-agent-secret': tenant.secret },
    ),
  );
  expect(res.status, why).toBe(200);
  await app.settle();
  const turnId = res.headers.get('x-turn-id');
  if (!turnId) return; // rate-limited under this config: answered without a turn
  const record = await turnRecord(tenant.tenantId, turnId);
  expect(record.decision, `${why}: ${record.decisionReason}`).not.toBe('error');
}

describe('tenant configs through the tenant API', () => {
  it.prop([configCase], fuzzParams(150))(
    'never 5xx; 200 and round-trips, or 400 listing problems and nothing stored',
    async (c) => {
      const before = await storedConfig();
      let body: string;
      let why: string;
      if (c.kind === 'raw') {
        body = c.body;
        why = `raw ${JSON.stringify(c.body).slice(0, 80)}`;
      } else {
        // The body names the tenant it is PUT to (a different tenantId is refused, not rewritten).
        const config = { ...structuredClone(BASE), tenantId: tenant.tenantId } as unknown;
        why = c.edits.map((e) => applyEdit(config, BASE_PATHS, e)).join('; ');
        body = JSON.stringify(config);
      }
      const res = await tenantApi('PUT', body);
      const answer = (await res.json()) as { ok?: boolean; config?: TenantConfig; error?: string; details?: string[] };
      tally.record(res.status, c.kind === 'raw' ? 'not-a-config' : res.status === 200 ? 'accepted' : 'refused');
      expect(res.status, `${why}: ${JSON.stringify(answer).slice(0, 400)}`).toBeLessThan(500);
      expect([200, 400], `${why}: ${JSON.stringify(answer).slice(0, 400)}`).toContain(res.status);
      if (res.status === 400) {
        expect(answer.error, why).toEqual(expect.any(String));
        if (answer.error === 'invalid tenant config') {
          expect(answer.details?.length, why).toBeGreaterThan(0);
          for (const d of answer.details!) expect(d, why).toMatch(/\S/);
        }
        expect(await storedConfig(), why).toEqual(before);
        return;
      }
      expect(answer.ok).toBe(true);
      expect(answer.config!.tenantId).toBe(tenant.tenantId);
      expect(await storedConfig(), why).toEqual(answer.config);
      const again = await tenantApi('PUT', JSON.stringify(answer.config));
      expect(again.status, why).toBe(200);
      expect(((await again.json()) as { config: unknown }).config, why).toEqual(answer.config);
      await answersANormalMessage(why);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('afterwards the demo config is accepted again and answers a normal message with its FAQ', async () => {
    const res = await tenantApi('PUT', JSON.stringify(demoTenantConfig(tenant.tenantId)));
    expect(res.status).toBe(200);
    const contactId = String(7_800_000_000 + contactCounter++);
    const msg = await app.fetch(
      webhookRequest(
        tenant.tenantId,
        JSON.stringify({ contact: { id: contactId }, text: 'What are your opening hours?' }),
        { 'x-staged-agent-secret': tenant.secret },
      ),
    );
    expect(msg.status).toBe(200);
    const record = await turnRecord(tenant.tenantId, msg.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toContain('Monday to Saturday');
  });
});
