import type { Guardrail } from '../../guardrails/guardrail.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { guardrailTenantOverrides } from '../support/guardrail-tenant.js';
import { reply, scriptedModel, type ScriptedStep } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/** A case of the injection or benign set, run through the real app with the default guardrails. */
export interface TurnCase {
  id: string;
  text: string;
  firstName?: string;
  customFields?: Record<string, unknown>;
  faq?: { id: string; question: string; answer: string }[];
  before?: { text: string; reply: string };
  steps: ScriptedStep[];
}

export interface TurnOutcome {
  record: TurnRecord;
  entry: OutboxEntry | null;
}

/** `kind:key` of an action, as the cases name them (flow name, tag, or field=value). */
export function actionKey(a: Pick<StagedAction, 'kind' | 'args'>): string {
  switch (a.kind) {
    case 'send_flow':
      return `send_flow:${String(a.args.flowName)}`;
    case 'add_tag':
    case 'remove_tag':
      return `${a.kind}:${String(a.args.tag)}`;
    case 'set_field':
      return `set_field:${String(a.args.field)}=${String(a.args.value)}`;
    default:
      return `${a.kind}:${JSON.stringify(a.args)}`;
  }
}

export async function runTurnCase(c: TurnCase, guardrails?: readonly Guardrail[]): Promise<TurnOutcome> {
  const demoFaq = demoTenantConfig('x').faq ?? [];
  const faq = c.faq ? [...demoFaq.filter((e) => !c.faq!.some((p) => p.id === e.id)), ...c.faq] : undefined;
  const { tenantId, secret } = await seedTenant({ ...guardrailTenantOverrides(), ...(faq ? { faq } : {}) });
  const contactId = await newContact();
  const contact = { id: contactId, first_name: c.firstName ?? 'Ada', custom_fields: c.customFields ?? {} };
  if (c.before) {
    const earlier = await appWith(scriptedModel([{ reply: reply(c.before.reply) }])).post(tenantId, secret, {
      contact,
      text: c.before.text,
    });
    if (earlier.status !== 200) throw new Error(`the earlier turn of ${c.id} failed: ${earlier.status}`);
  }
  const app = appWith(scriptedModel(c.steps), guardrails);
  const res = await app.post(tenantId, secret, { contact, text: c.text });
  await app.settle();
  if (res.status !== 200) throw new Error(`${c.id}: HTTP ${res.status} ${await res.text()}`);
  const turnId = res.headers.get('x-turn-id');
  if (!turnId) throw new Error(`${c.id}: no turn ran (rate-limited: ${res.headers.get('x-rate-limited')})`);
  return { record: await turnRecord(tenantId, turnId), entry: await outboxEntry(tenantId, turnId) };
}
