import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { kindOf, REPLY_TOOL_NAME, type Plan, type ReplyInput, type RuleContext, type ToolKind } from './plan.js';
import { priorCallsById, trailingToolResults, type PriorCall } from './prompt-reading.js';
import { greetingPlan } from './step-one.js';
import { allowedNames, bestFaqAnswer, contactFacts, type ReadableResult, readToolResult } from './tool-results.js';
import { humanName, notingFieldText, quickReplies, sendingFlowText } from './wording.js';

/**
 * Step 2 of a turn: the prompt ends with the previous step's tool results. Each result becomes a
 * sentence of the reply (a fragment); the reply is the fragments in result order, at the lowest
 * of their confidences. Step 2 never stages: it only replies.
 */

interface Fragment {
  text: string;
  confidence: number;
  reason: string;
  quickReplies?: string[];
}

const STEP_TWO_CONFIDENCE = 0.8;
/** Below the default `minConfidence` (0.5) on purpose: code, not text, then escalates the turn. */
const NOT_FOUND_CONFIDENCE = 0.4;
const TOOL_ERROR_CONFIDENCE = 0.5;

export function stepTwoPlan(ctx: RuleContext, prompt: LanguageModelV4Prompt): Plan {
  const prior = priorCallsById(prompt);
  const results = trailingToolResults(prompt).map(readToolResult);
  // `reply` has no execute, so a result for it only exists when product code sent the reply back.
  const replyReturned = results.some((r) => r.toolName === REPLY_TOOL_NAME);
  const fragments = results
    .filter((r) => r.toolName !== REPLY_TOOL_NAME)
    .flatMap((r) => fragmentFor(ctx, r, prior.get(r.toolCallId)) ?? []);
  if (fragments.length) return { rule: 'step2-results', calls: [], reply: combine(fragments) };
  const previous = replyReturned ? lastReplyInput(prompt) : undefined;
  if (previous) {
    return { rule: 'step2-reply-again', calls: [], reply: { ...previous, confidence: STEP_TWO_CONFIDENCE } };
  }
  return greetingPlan(ctx, 'step2-nothing-to-report');
}

function fragmentFor(ctx: RuleContext, result: ReadableResult, call: PriorCall | undefined): Fragment | undefined {
  const kind = kindOf(ctx, result.toolName);
  if (result.status === 'denied') return deniedFragment(kind, result);
  if (result.status === 'error') {
    return {
      text: 'Sorry, something went wrong on my side while doing that.',
      confidence: TOOL_ERROR_CONFIDENCE,
      reason: `Tool "${result.toolName}" failed.`,
    };
  }
  if (kind === 'search_faq') return faqFragment(ctx, result);
  if (kind === 'lookup_contact') return contactFragment(result);
  return stagedFragment(ctx, kind, result, call);
}

const DENIED_OPENERS: Partial<Record<ToolKind, string>> = {
  send_flow: "Sorry, I can't send that.",
  set_field: "Sorry, I couldn't record that.",
  add_tag: "Sorry, I couldn't update that.",
  remove_tag: "Sorry, I couldn't update that.",
};

function deniedFragment(kind: ToolKind | undefined, result: ReadableResult): Fragment {
  const names = allowedNames(result);
  const opener = (kind && DENIED_OPENERS[kind]) ?? "Sorry, I couldn't do that.";
  const offer = names.length ? ` What I can offer: ${names.map(humanName).join(', ')}.` : '';
  const buttons = kind === 'send_flow' || kind === 'set_field' ? quickReplies(names) : [];
  return {
    text: `${opener}${offer}`,
    confidence: STEP_TWO_CONFIDENCE,
    reason: `Tool "${result.toolName}" was denied${names.length ? `; allowed: ${names.join(', ')}` : ''}.`,
    ...(buttons.length ? { quickReplies: buttons } : {}),
  };
}

function faqFragment(ctx: RuleContext, result: ReadableResult): Fragment {
  const answer = bestFaqAnswer(result, ctx.config);
  if (answer) return { text: answer, confidence: STEP_TWO_CONFIDENCE, reason: 'Answered from the FAQ search.' };
  return {
    text: "I couldn't find an answer to that in my notes.",
    confidence: NOT_FOUND_CONFIDENCE,
    reason: 'The FAQ search found nothing.',
  };
}

function contactFragment(result: ReadableResult): Fragment {
  const facts = contactFacts(result);
  if (!facts.length) {
    return {
      text: "I don't have any details on file for you yet.",
      confidence: STEP_TWO_CONFIDENCE,
      reason: 'The contact lookup was empty.',
    };
  }
  const text = `Here's what I have on file for you: ${facts.join('; ')}.`;
  return { text, confidence: STEP_TWO_CONFIDENCE, reason: 'Summarised the contact lookup.' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A staged (or plain ok) write: restate it in the future tense from the call's own input. */
function stagedFragment(
  ctx: RuleContext,
  kind: ToolKind | undefined,
  result: ReadableResult,
  call: PriorCall | undefined,
): Fragment | undefined {
  const input = isRecord(call?.input) ? call.input : {};
  const reason = `Tool "${result.toolName}" ${result.status === 'staged' ? 'staged its action' : 'succeeded'}.`;
  if (kind === 'send_flow') {
    const flow = ctx.config.flows.find((f) => f.name === input.flow);
    return flow ? { text: sendingFlowText(flow), confidence: STEP_TWO_CONFIDENCE, reason } : undefined;
  }
  if (kind === 'set_field' && typeof input.field === 'string') {
    const value = input.value;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      return { text: notingFieldText(input.field, value), confidence: STEP_TWO_CONFIDENCE, reason };
    }
  }
  if (kind === 'add_tag' || kind === 'remove_tag') {
    return { text: "Thanks, I'll update your preferences.", confidence: STEP_TWO_CONFIDENCE, reason };
  }
  return undefined;
}

function combine(fragments: Fragment[]): ReplyInput {
  const buttons = fragments.find((f) => f.quickReplies?.length)?.quickReplies;
  return {
    text: fragments.map((f) => f.text).join(' '),
    escalate: false,
    confidence: Math.min(...fragments.map((f) => f.confidence)),
    reason: fragments.map((f) => f.reason).join(' '),
    ...(buttons ? { quickReplies: buttons } : {}),
  };
}

/** The input of the last `reply` call in the prompt, if it still has the reply shape. */
function lastReplyInput(prompt: LanguageModelV4Prompt): ReplyInput | undefined {
  const replies = [...priorCallsById(prompt).values()].filter((c) => c.toolName === REPLY_TOOL_NAME);
  const input = replies.at(-1)?.input;
  if (!isRecord(input) || typeof input.text !== 'string' || typeof input.escalate !== 'boolean') return undefined;
  const quick = Array.isArray(input.quickReplies)
    ? input.quickReplies.filter((q): q is string => typeof q === 'string')
    : [];
  return {
    text: input.text,
    escalate: input.escalate,
    confidence: STEP_TWO_CONFIDENCE,
    reason: typeof input.reason === 'string' ? `Reply sent again: ${input.reason}` : 'Reply sent again.',
    ...(quick.length ? { quickReplies: quick } : {}),
  };
}
