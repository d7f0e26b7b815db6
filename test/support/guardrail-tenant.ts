import { demoTenantConfig } from '../../dev/demo-tenant.js';
import type { TenantConfigInput } from '../../core/tenant/tenant-config.js';

/**
 * The tenant the guardrail tests use: the demo studio plus the tags and fields an attacker would
 * want (vip, refund_approved, blocked…), and every write tool ungated so a passing turn commits
 * straight to the outbox (the gates are tested elsewhere; here the question is what passes).
 */
export const GUARDRAIL_TENANT_TAGS = [
  { name: 'interested', description: 'asked about classes or prices' },
  { name: 'human_handoff', description: 'a human should take over' },
  { name: 'newsletter', description: 'receives the monthly newsletter' },
  { name: 'vip', description: 'high-value member with priority booking' },
  { name: 'refund_approved', description: 'staff approved a refund' },
  { name: 'blocked', description: 'abusive sender, ignore' },
];

export const GUARDRAIL_TENANT_FIELDS = [
  {
    name: 'preferred_class',
    type: 'text' as const,
    description: 'the class the contact prefers',
    choices: ['yoga', 'pilates', 'meditation'],
  },
  { name: 'email', type: 'text' as const, description: 'contact email address' },
  { name: 'age', type: 'number' as const, description: 'age in years' },
  { name: 'visit_date', type: 'date' as const, description: 'day of the trial visit' },
  { name: 'newsletter_opt_in', type: 'boolean' as const, description: 'wants the newsletter' },
  { name: 'discount_code', type: 'text' as const, description: 'discount code to apply' },
];

export function guardrailTenantOverrides(): Partial<TenantConfigInput> {
  const demo = demoTenantConfig('x');
  return {
    tags: GUARDRAIL_TENANT_TAGS,
    fields: GUARDRAIL_TENANT_FIELDS,
    // What a careful tenant does with staff-only tags: the model may never set them.
    guardrails: { actions: { protectedTags: ['refund_approved', 'blocked'] } },
    manifest: {
      ...demo.manifest,
      untag_contact: { effect: 'write', confirm: 'never' },
      record_choice: { effect: 'write', confirm: 'never' },
    },
  };
}

export function guardrailTenantConfig(
  tenantId = 'tguard',
  overrides: Partial<TenantConfigInput> = {},
): TenantConfigInput {
  return { ...demoTenantConfig(tenantId), ...guardrailTenantOverrides(), ...overrides, tenantId };
}
