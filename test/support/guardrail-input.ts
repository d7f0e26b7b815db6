import type { GuardrailInput } from '../../guardrails/guardrail.js';
import type { GuardrailSettingsInput } from '../../core/tenant/guardrail-settings.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { Reply } from '../../core/reply.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { ModelStepRecord } from '../../core/turn-record.js';
import { parseTenantConfig, type TenantConfig, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import type { HistoryEntry } from '../../core/history-entry.js';
import { markAsData } from '../../tools/data-marking.js';
import { envelope } from '../../core/tool-envelope.js';
import { guardrailTenantConfig } from './guardrail-tenant.js';

/** Builders for guardrail unit tests: a finished turn as the pipeline sees it. */

export function testConfig(
  overrides: Partial<TenantConfigInput> = {},
  guardrails?: GuardrailSettingsInput,
): TenantConfig {
  const parsed = parseTenantConfig({
    ...guardrailTenantConfig('tunit', overrides),
    ...(guardrails ? { guardrails } : {}),
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.config;
}

let seq = 0;

/** Actions exactly as the built-in tools stage them for the guardrail tenant. */
export const act = {
  flow(name: string, config = testConfig()): StagedAction {
    const flow = config.flows.find((f) => f.name === name);
    return {
      id: `turn.a${++seq}`,
      tool: 'send_media',
      kind: 'send_flow',
      args: { flowNs: flow?.ns ?? 'unknown_ns', flowName: name },
      effect: 'write',
      idempotent: false,
      gate: 'none',
      summary: `send flow "${name}"`,
    };
  },
  tag(tag: string): StagedAction {
    return {
      id: `turn.a${++seq}`,
      tool: 'tag_contact',
      kind: 'add_tag',
      args: { tag },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `add tag "${tag}"`,
    };
  },
  untag(tag: string): StagedAction {
    return {
      id: `turn.a${++seq}`,
      tool: 'untag_contact',
      kind: 'remove_tag',
      args: { tag },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `remove tag "${tag}"`,
    };
  },
  field(field: string, value: string | number | boolean): StagedAction {
    return {
      id: `turn.a${++seq}`,
      tool: 'record_choice',
      kind: 'set_field',
      args: { field, value },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `set field "${field}" to ${JSON.stringify(value)}`,
    };
  },
};

/** A step whose tool results are the staging envelopes of `actions` (plus any extra results). */
export function stagingStep(
  step: number,
  actions: StagedAction[],
  extra: ModelStepRecord['toolResults'] = [],
): ModelStepRecord {
  return {
    step,
    ms: 1,
    finishReason: 'tool-calls',
    toolCalls: actions.map((a, i) => ({ toolCallId: `c${step}_${i}`, toolName: a.tool, input: a.args })),
    toolResults: [
      ...extra,
      ...actions.map((a, i) => ({
        toolCallId: `c${step}_${i}`,
        toolName: a.tool,
        status: 'staged' as const,
        output: envelope.staged(`Staged, not done: ${a.summary}.`, [
          { actionId: a.id, kind: a.kind, summary: a.summary },
        ]),
      })),
    ],
  };
}

/** A read result as search_faq / lookup_contact return it. */
export function readResult(
  toolName: 'search_faq' | 'lookup_contact',
  data: unknown,
): ModelStepRecord['toolResults'][number] {
  return {
    toolCallId: `r_${++seq}`,
    toolName,
    status: 'ok',
    output: envelope.ok(markAsData(toolName === 'search_faq' ? 'faq' : 'contact fields', JSON.stringify(data))),
  };
}

export interface TurnSpec {
  text?: string;
  name?: string;
  fields?: Record<string, unknown>;
  lastInteraction?: string;
  receivedAt?: string;
  reply?: Partial<Reply> | null;
  staged?: StagedAction[];
  steps?: ModelStepRecord[];
  config?: TenantConfig;
  instructions?: string;
  history?: HistoryEntry[];
}

export function turnInput(spec: TurnSpec = {}): GuardrailInput {
  const config = spec.config ?? testConfig();
  const staged = spec.staged ?? [];
  const reply: Reply | null =
    spec.reply === null
      ? null
      : { text: 'Happy to help!', escalate: false, confidence: 0.9, reason: 'test', ...spec.reply };
  const inbound: InboundMessage = {
    tenantId: config.tenantId,
    channel: 'manychat',
    contactId: '1001',
    messageKey: 'k:test',
    text: spec.text ?? 'hello',
    contact: {
      ...(spec.name ? { name: spec.name } : {}),
      fields: spec.fields ?? {},
      ...(spec.lastInteraction ? { lastInteraction: spec.lastInteraction } : {}),
    },
    receivedAt: spec.receivedAt ?? '2026-11-29T12:00:00.000Z',
  };
  return {
    inbound,
    rawReply: reply,
    reply,
    staged,
    steps: spec.steps ?? (staged.length ? [stagingStep(1, staged)] : []),
    config,
    instructions: spec.instructions ?? `${config.persona}\n\nHow this conversation works:\n- rules`,
    ...(spec.history ? { history: spec.history } : {}),
  };
}

/** Runs a guardrail's check outside the pipeline (unit tests want the raw verdict). */
export async function verdictOf(
  guardrail: { check: (input: GuardrailInput, signal: AbortSignal) => unknown },
  input: GuardrailInput,
) {
  return (await guardrail.check(input, new AbortController().signal)) as {
    outcome: 'pass' | 'veto' | 'escalate';
    reason: string;
  };
}
