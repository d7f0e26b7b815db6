import { it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { FINISH_TURN_PATH } from '../../core/finish-turn-job.js';
import { INBOUND_RETRY_PATH } from '../../core/inbound-retry-job.js';
import { DELIVERY_PATH } from '../../outbox/publisher.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { newContact, seedTenant, workerEnv } from '../support/workers-env.js';
import { outboxEntry, turnRecord } from '../workers/turn-helpers.js';
import { bodyGrade, jobBody, signedCase, type SignedCase, type SignedKind } from './arbitraries/signed-jobs.js';
import { alwaysStagingModel, fuzzApp, tenantFootprint, webhookRequest } from './fuzz-app.js';
import { fuzzParams, PROPERTY_TIMEOUT_MS, quietRoutineLogs, StatusTally } from './fuzz-run.js';

/**
 * What QStash brings back signed — outbox deliveries, finish-turn jobs, inbound retries — fuzzed
 * field by field (signed with test/support/qstash-signature.ts, now and then signed wrong).
 * Properties: never 5xx (a 5xx to QStash is a retry, for ever, of a body that will never be
 * better); the answer the case calls for (401 for a bad signature, 400 for an invalid body, 489
 * for a tenant or entry that does not exist, 200 for a job that runs); a refused job starts no
 * turn and publishes nothing; a job that runs leaves a turn record and no failed stage.
 */
const tally = new StatusTally('signed-jobs');
const app = fuzzApp(alwaysStagingModel());
let tenant: { tenantId: string; secret: string };

const PATHS: Record<SignedKind, string> = { deliver: DELIVERY_PATH, finish: FINISH_TURN_PATH, retry: INBOUND_RETRY_PATH };

let restoreLogs: () => void;
beforeAll(async () => {
  restoreLogs = quietRoutineLogs();
  tenant = await seedTenant();
});
afterAll(() => {
  restoreLogs();
  tally.print();
});

async function signedRequest(c: SignedCase, body: string): Promise<Request> {
  const base = workerEnv.PUBLIC_URL!.replace(/\/$/, '');
  const path = PATHS[c.kind];
  const key = workerEnv.QSTASH_CURRENT_SIGNING_KEY!;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (c.signature !== 'missing') {
    headers['upstash-signature'] = await signQStashDelivery({
      key,
      body,
      url: `${base}${c.signature === 'other-path' ? PATHS[c.kind === 'deliver' ? 'finish' : 'deliver'] : path}`,
      ...(c.signature === 'altered-body' ? { hashOf: `${body} ` } : {}),
      ...(c.signature === 'expired' ? { issuedAt: Math.floor(Date.now() / 1000) - 3600 } : {}),
    });
  }
  return new Request(`http://worker.test${path}`, { method: 'POST', headers, body });
}

/** The statuses the case allows, from the case (and whether a delivery's entry exists). */
function allowed(c: SignedCase, entryExists: boolean): number[] {
  if (c.signature !== 'good') return [401];
  const grade = bodyGrade(c);
  if (grade === 'invalid') return [400];
  const refusedEdge = grade === 'edge' ? [400] : [];
  if (c.tenant === 'unknown') return [489, ...refusedEdge];
  // A well-formed turn id: no outbox entry (489), or the entry of a turn an earlier finish job ran.
  if (c.kind === 'deliver') return entryExists ? [200] : [489];
  return [200, ...refusedEdge];
}

async function observe() {
  await app.settle();
  return { turns: app.turnsStarted, published: app.published, footprint: await tenantFootprint(tenant.tenantId) };
}

describe('signed QStash bodies', () => {
  it.prop([signedCase], fuzzParams(240))('never 5xx; 401 / 400 / 489 / 200 as the case calls for; only a job that runs changes anything', async (c) => {
    const before = await observe();
    const body = c.raw ?? JSON.stringify(jobBody(c, { ours: tenant.tenantId, unknown: `${tenant.tenantId}-nobody` }));
    const turnId = c.fields.turnId!.value;
    const entryExists = c.kind === 'deliver' && c.tenant === 'ours' && typeof turnId === 'string' && bodyGrade(c) === 'valid' && (await outboxEntry(tenant.tenantId, turnId)) !== null;
    const res = await app.fetch(await signedRequest(c, body));
    const text = await res.text();
    const why = `${c.kind} sig=${c.signature} grade=${bodyGrade(c)} tenant=${c.tenant} ${body.slice(0, 400)} → ${text.slice(0, 300)}`;
    tally.record(res.status, `${c.kind}/${res.status === 401 ? 'unsigned' : bodyGrade(c)}`);
    expect(res.status, why).toBeLessThan(500);
    expect(allowed(c, entryExists), why).toContain(res.status);
    if (res.status !== 200) {
      if (res.status === 489) expect(res.headers.get('upstash-nonretryable-error'), why).toBe('true');
      expect(await observe(), why).toEqual(before);
      return;
    }
    const answer = JSON.parse(text) as { outcome: string; turnId: string };
    if (c.kind === 'deliver') {
      expect(answer.outcome, why).toBe('done');
      return;
    }
    expect(['finished', 'already-done', 'duplicate'], why).toContain(answer.outcome);
    if (answer.outcome === 'finished') {
      const record = await turnRecord(tenant.tenantId, answer.turnId);
      expect(record.decision, `${why}: ${record.decisionReason}`).not.toBe('error');
    }
  }, PROPERTY_TIMEOUT_MS);

  it('afterwards the tenant still answers a normal message at once, with no claim left open', async () => {
    const offline = fuzzApp('offline');
    const res = await offline.fetch(webhookRequest(tenant.tenantId, JSON.stringify({ contact: { id: await newContact() }, text: 'What are your opening hours?' }), { 'x-staged-agent-secret': tenant.secret }));
    expect(res.status).toBe(200);
    const record = await turnRecord(tenant.tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toContain('Monday to Saturday');
    await offline.settle();
    expect((await tenantFootprint(tenant.tenantId)).openClaims).toBe(0);
  });
});
