import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { parseCase, type CaseStep } from '../../evals/case-format.js';

const REPLY_KEYS = new Set(['text', 'escalate', 'confidence', 'reason', 'quickReplies']);

/** One recorded model call as a case step: its tool calls in order, the reply call last. */
function stepOf(step: TurnRecord['steps'][number]): CaseStep {
  const out: CaseStep = {};
  const calls = step.toolCalls.filter((c) => c.toolName !== 'reply').map((c) => ({ tool: c.toolName, input: c.input }));
  if (calls.length) out.calls = calls;
  const replyCall = step.toolCalls.find((c) => c.toolName === 'reply');
  if (replyCall) {
    const input = replyCall.input as Record<string, unknown> | null;
    // The shorthand is strict: a reply the schema would not take is kept raw, exactly as recorded.
    const shorthand =
      input &&
      typeof input === 'object' &&
      typeof input.text === 'string' &&
      Object.keys(input).every((k) => REPLY_KEYS.has(k));
    if (shorthand) out.reply = input as CaseStep['reply'];
    else out.replyRaw = replyCall.input;
  }
  return out;
}

/**
 * A recorded turn as an eval case (evals/case-format.ts): the contact's message, the model's
 * recorded calls as the script, the recorded decision, reply and model calls as what must happen,
 * and the tenant's config (as overrides of the demo tenant) so the case runs as the turn ran.
 * Validated with the case parser before it is returned.
 */
export function recordToCase(record: TurnRecord, config: TenantConfig): Record<string, unknown> {
  const { tenantId: _tenantId, ...overrides } = config;
  const expect: Record<string, unknown> = { decision: record.decision, modelCalls: record.steps.length };
  if (record.reply.text) expect.replyContains = [record.reply.text];
  else expect.replyEmpty = true;
  const raw = {
    name: `replay-${record.turnId}`,
    description: `Exported from turn ${record.turnId} of tenant ${record.tenantId} (${record.startedAt}): ${record.decisionReason}`,
    tags: ['replay'],
    tenant: { overrides },
    channel: record.inbound.channel === 'messenger' ? 'messenger' : 'manychat',
    turns: [{ text: record.inbound.text || '(empty)', model: record.steps.map(stepOf), expect }],
  };
  parseCase(raw, `${raw.name}.json`);
  return raw;
}
