import { fc, it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { signCallback, type CallbackClaim } from '../../src/approvals/callback-signature.js';
import { newContact, seedTenant, workerEnv } from '../support/workers-env.js';
import {
  ABSENT,
  buttonTamper,
  callbackCase,
  callbackObject,
  callbackSchemaValid,
  type CallbackCase,
} from './arbitraries/callback-body.js';
import { fuzzApp, tenantFootprint, webhookRequest } from './fuzz-app.js';
import { alwaysStagingModel } from './fuzz-app.js';
import { fuzzParams, PROPERTY_TIMEOUT_MS, quietRoutineLogs, StatusTally } from './fuzz-run.js';

/**
 * Button presses (signed `dynamic_block_callback` payloads), fuzzed: every field valid or not,
 * signed by us over exactly these words, over another contact's or tenant's, or not at all; with
 * and without the secret header. Then presses of a real pending confirmation's Yes button with one
 * thing changed. Properties: never 5xx; the status the case's validity and signature call for; a
 * press that is not a genuine one confirms nothing, starts no turn and publishes nothing; the
 * genuine press still confirms afterwards.
 */
const tally = new StatusTally('manychat-callbacks');
const tamperTally = new StatusTally('manychat-button-tamper');
const app = fuzzApp(alwaysStagingModel());
let tenant: { tenantId: string; secret: string };
let realYes: {
  contact: { id: string };
  callback: { kind: 'confirm'; pendingId: string; answer: 'yes'; nonce: string };
  sig: string;
};

type Block = { content: { quick_replies: { caption: string; payload: typeof realYes }[] } };

let restoreLogs: () => void;
beforeAll(async () => {
  restoreLogs = quietRoutineLogs();
  tenant = await seedTenant();
  const contactId = await newContact();
  const res = await fuzzApp('offline').fetch(
    webhookRequest(tenant.tenantId, JSON.stringify({ contact: { id: contactId }, text: 'I prefer pilates' }), {
      'x-staged-agent-secret': tenant.secret,
    }),
  );
  const buttons = ((await res.json()) as Block).content.quick_replies;
  const yes = buttons.find((b) => b.payload.callback.answer === 'yes');
  if (!yes)
    throw new Error(`the demo config's "I prefer pilates" turn offered no Yes button: ${JSON.stringify(buttons)}`);
  realYes = yes.payload;
});
afterAll(() => {
  restoreLogs();
  tally.print();
  tamperTally.print();
});

const secret = () => workerEnv.SESSION_SECRET!;

async function signatureFor(c: CallbackCase, tenantId: string): Promise<unknown> {
  const contactId = String(c.contactId.value);
  switch (c.sig) {
    case 'absent':
      return ABSENT;
    case 'too-long':
      return 'f'.repeat(201);
    case 'not-a-string':
      return 12345;
    case 'random':
      return '0'.repeat(64);
    default: {
      const claim = {
        ...callbackObject(c),
        tenantId: c.sig === 'other-tenant' ? `${tenantId}x` : tenantId,
        contactId: c.sig === 'other-contact' ? `${contactId}1` : contactId,
      };
      return signCallback(secret(), claim as unknown as CallbackClaim);
    }
  }
}

/** What the webhook must answer, from the case alone. */
function expectedStatus(c: CallbackCase): 200 | 400 | 401 {
  if (!callbackSchemaValid(c)) return c.withHeader ? 400 : 401;
  return c.sig === 'ours' ? 200 : 401;
}

async function observe() {
  await app.settle();
  return { turns: app.turnsStarted, published: app.published, footprint: await tenantFootprint(tenant.tenantId) };
}

describe('button presses', () => {
  it.prop([callbackCase], fuzzParams(150))(
    'never 5xx; 200 only for our own signature over well-formed words; nothing but a suggestion runs a turn',
    async (c) => {
      const before = await observe();
      const sig = await signatureFor(c, tenant.tenantId);
      const body = {
        contact: c.contactId.value === ABSENT ? {} : { id: c.contactId.value },
        callback: callbackObject(c),
        ...(sig !== ABSENT ? { sig } : {}),
        ...(c.text !== undefined ? { text: c.text } : {}),
      };
      const res = await app.fetch(
        webhookRequest(
          tenant.tenantId,
          JSON.stringify(body),
          c.withHeader ? { 'x-staged-agent-secret': tenant.secret } : {},
        ),
      );
      const why = `${JSON.stringify(body).slice(0, 300)} header=${c.withHeader}`;
      const kind = callbackObject(c).kind;
      tally.record(res.status, `${typeof kind === 'string' ? kind : 'bad-kind'}/${c.sig}`);
      expect(res.status, why).toBeLessThan(500);
      expect(res.status, `${why}: ${await res.clone().text()}`).toBe(expectedStatus(c));
      const suggestionRan = res.status === 200 && kind === 'suggest';
      if (res.status === 200 && kind === 'confirm')
        expect(res.headers.get('x-confirmation-outcome'), why).toBe('invalid');
      if (!suggestionRan) expect(await observe(), why).toEqual(before);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it.prop([buttonTamper], fuzzParams(60))(
    'a real Yes button with one thing changed confirms nothing: 401 unsigned, "invalid" when signed over the changed words',
    async (t) => {
      const before = await observe();
      const payload = structuredClone(realYes);
      if (t.change === 'nonce') payload.callback.nonce = t.value;
      if (t.change === 'pendingId') payload.callback.pendingId = t.value;
      if (t.change === 'contact') payload.contact.id = t.value;
      if (t.change === 'answer') payload.callback.answer = t.value as 'yes';
      if (t.change === 'sig') payload.sig = t.value;
      fc.pre(JSON.stringify(payload) !== JSON.stringify(realYes));
      if (t.resign)
        payload.sig = await signCallback(secret(), {
          ...payload.callback,
          tenantId: tenant.tenantId,
          contactId: payload.contact.id,
        });
      const res = await app.fetch(webhookRequest(tenant.tenantId, JSON.stringify(payload), {}));
      tamperTally.record(res.status, `${t.change}${t.resign ? '/resigned' : ''}`);
      expect(res.status).toBe(t.resign ? 200 : 401);
      if (t.resign) expect(res.headers.get('x-confirmation-outcome')).toBe('invalid');
      expect(await observe()).toEqual(before);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('afterwards the genuine Yes still confirms, once', async () => {
    const before = await observe();
    const res = await app.fetch(webhookRequest(tenant.tenantId, JSON.stringify(realYes), {}));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-confirmation-outcome')).toBe('confirmed');
    expect((await observe()).published).toBe(before.published + 1);
    const again = await app.fetch(webhookRequest(tenant.tenantId, JSON.stringify(realYes), {}));
    expect(again.headers.get('x-confirmation-outcome')).toBe('already-answered');
  });
});
