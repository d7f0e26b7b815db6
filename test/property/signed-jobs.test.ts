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

const PATHS: Record<SignedKind, string> = {
  deliver: DELIVERY_PATH,
  finish: FINISH_TURN_PATH,
  retry: INBOUND_RETRY_PATH,
};

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
  it.prop([signedCase], fuzzParams(240))(
    'never 5xx; 401 / 400 / 489 / 200 as the case calls for; only a job that runs changes anything',
    async (c) => {
      const before = await observe();
      const body = c.raw ?? JSON.stringify(jobBody(c, { ours: tenant.tenantId, unknown: `${tenant.tenantId}-nobody` }));
      const turnId = c.fields.turnId!.value;
      const entryExists =
        c.kind === 'deliver' &&
        c.tenant === 'ours' &&
        typeof turnId === 'string' &&
        bodyGrade(c) === 'valid' &&
        (await outboxEntry(tenant.tenantId, turnId)) !== null;
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
    },
    PROPERTY_TIMEOUT_MS,
  );

  // Found by this property (seed 7, FUZZ_SCALE=8): a finish-turn job whose contact id escapes to
  // more than 300 characters answered 500 ("contact id is too long to be part of a key"), and an
  // inbound retry 503 — so QStash retried, for ever, a job that could never run.
  it.each([
    ['finish', '60 × "é"', 'é'.repeat(60)],
    ['finish', '301 digits', '9'.repeat(301)],
    ['retry', '60 × "é"', 'é'.repeat(60)],
    ['retry', '101 × "%"', '%'.repeat(101)],
  ] as const)(
    'a signed %s job with a contact id of %s (too long for a key once escaped) → 400, nothing run',
    async (kind, _what, contactId) => {
      const before = await observe();
      const inbound = {
        tenantId: tenant.tenantId,
        channel: 'manychat',
        contactId,
        messageKey: 'k',
        text: 'hi',
        contact: { fields: {} },
        receivedAt: new Date().toISOString(),
      };
      const body = JSON.stringify(kind === 'finish' ? { turnId: 'turn_too_long_contact', inbound } : { inbound });
      const base = workerEnv.PUBLIC_URL!.replace(/\/$/, '');
      const signature = await signQStashDelivery({
        key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!,
        url: `${base}${PATHS[kind]}`,
        body,
      });
      const res = await app.fetch(
        new Request(`http://worker.test${PATHS[kind]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'upstash-signature': signature },
          body,
        }),
      );
      expect(res.status, await res.clone().text()).toBe(400);
      expect(await observe()).toEqual(before);
    },
  );

  it('afterwards the tenant still answers a normal message at once, with no claim left open', async () => {
    const offline = fuzzApp('offline');
    const res = await offline.fetch(
      webhookRequest(
        tenant.tenantId,
        JSON.stringify({ contact: { id: await newContact() }, text: 'What are your opening hours?' }),
        { 'x-staged-agent-secret': tenant.secret },
      ),
    );
    expect(res.status).toBe(200);
    const record = await turnRecord(tenant.tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toContain('Monday to Saturday');
    await offline.settle();
    expect((await tenantFootprint(tenant.tenantId)).openClaims).toBe(0);
  });
});
