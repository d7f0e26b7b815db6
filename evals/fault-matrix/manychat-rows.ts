import type { FaultKind } from '../../dev/manychat-sandbox/types.js';
import type { ScriptStep } from '../../dev/model-sandbox.js';
import type { FaultEnvironment } from './environment.js';
import { observeRow } from './observe.js';
import type { Expectation, Row } from './row.js';
import { createWorld, newContact, postWebhook, scriptModel } from './world.js';

/**
 * ManyChat failing for each action kind: one contact, one turn that stages exactly that action
 * (send_content is the reply of a deferred turn: the model takes longer than the tenant's
 * deadline), one fault on that endpoint. Expected, as the delivery promises: 429 and 503 are
 * refusals, retried until done; 500, 502, 504, a timeout or a hang may have been performed, so a
 * send becomes `unknown` (never resent, listed in the dead letters) while a tag or a field is
 * retried until done; a slow answer inside the client's timeout is simply done, one past it is a
 * timeout (ManyChat did perform it: a resent send would be a duplicate, a tag is repeated).
 */
const reply = (text: string) => ({ text, escalate: false, confidence: 0.9, reason: 'fault matrix' });

export const ACTION_SETUPS = {
  send_flow: {
    text: 'Please send me the brochure',
    faultPath: '/sendFlow',
    step: { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending the brochure now.') },
  },
  send_content: {
    text: 'What are your opening hours?',
    faultPath: '/sendContent',
    step: { latencyMs: 2500, reply: reply('We are open Monday to Saturday, 7:00 to 21:00.') },
  },
  add_tag: {
    text: 'Please tag me as interested',
    faultPath: '/addTagByName',
    step: { calls: [{ tool: 'tag_contact', input: { tag: 'interested' } }], reply: reply('Noted your interest.') },
  },
  remove_tag: {
    text: 'Please remove the interested tag',
    faultPath: '/removeTagByName',
    step: { calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }], reply: reply('Removed it.') },
  },
  set_field: {
    text: 'I prefer pilates',
    faultPath: '/setCustomFieldByName',
    step: {
      calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
      reply: reply('Pilates it is.'),
    },
  },
} satisfies Record<string, { text: string; faultPath: string; step: ScriptStep }>;

export type ActionSetupKind = keyof typeof ACTION_SETUPS;
const SENDS = new Set<ActionSetupKind>(['send_flow', 'send_content']);

const FAULTS: { kind: FaultKind; count: number; label: string; delayMs?: number }[] = [
  { kind: '429', count: 2, label: '429 ×2' },
  { kind: '503', count: 2, label: '503 ×2' },
  { kind: '500', count: 1, label: '500' },
  { kind: '502', count: 1, label: '502' },
  { kind: '504', count: 1, label: '504' },
  { kind: 'hang', count: 1, label: 'hang (client timeout 10 s)' },
  { kind: 'slow', count: 1, label: 'slow 3 s' },
  // Performed by ManyChat, but after the client gave up: the one case where a resend would duplicate.
  { kind: 'slow', count: 1, label: 'slow 12 s (past the client timeout)', delayMs: 12_000 },
];

function expectationFor(kind: ActionSetupKind, fault: (typeof FAULTS)[number]): Expectation {
  const maybePerformed =
    fault.kind === '500' ||
    fault.kind === '502' ||
    fault.kind === '504' ||
    fault.kind === 'hang' ||
    (fault.delayMs ?? 0) > 10_000;
  if (maybePerformed && SENDS.has(kind))
    return { performed: 0, unknown: 1, dead: 0, says: 'unknown, listed, not resent' };
  if (maybePerformed) return { performed: 1, unknown: 0, dead: 0, says: 'retried until done' };
  if (fault.kind === 'slow') return { performed: 1, unknown: 0, dead: 0, says: 'done once' };
  return { performed: 1, unknown: 0, dead: 0, says: 'refusal retried, done once' };
}

function faultRow(kind: ActionSetupKind, fault: (typeof FAULTS)[number]): Row {
  return {
    name: `ManyChat ${fault.label} on ${kind}`,
    exclusive: false,
    expected: expectationFor(kind, fault),
    async run(env: FaultEnvironment) {
      const setup = ACTION_SETUPS[kind];
      const world = await createWorld(
        env,
        `${kind}-${fault.kind}`,
        kind === 'send_content' ? { deadlineMs: 1000, holdingReply: 'One moment please…' } : {},
      );
      const contact = newContact(env, world, kind === 'remove_tag' ? ['interested'] : []);
      scriptModel(env, world, contact, [setup.step]);
      env.stack.manychat.injectFault({
        path: setup.faultPath,
        pageId: world.pageId,
        count: fault.count,
        kind: fault.kind,
        ...(fault.kind === '429' || fault.kind === '503' ? { retryAfterSeconds: 1 } : {}),
        ...(fault.kind === 'slow' ? { delayMs: fault.delayMs ?? 3000 } : {}),
      });
      const sent = await postWebhook(env, world, contact, setup.text);
      return { messages: [sent], outcome: await observeRow(env, world, [sent], 60_000) };
    },
  };
}

export const manyChatRows: Row[] = (Object.keys(ACTION_SETUPS) as ActionSetupKind[]).flatMap((kind) =>
  FAULTS.map((fault) => faultRow(kind, fault)),
);
