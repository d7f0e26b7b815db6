import type { FieldConfig, FlowConfig } from '../../../core/tenant/tenant-config.js';
import { callableInstance, type InputValue, type Plan, type RuleContext } from './plan.js';
import { containsPhrase, findPhrase, sharedSignificantWords, words } from './text-match.js';
import { greetingOpener, listPhrase, notingFieldText, quickReplies, sendingFlowText, withArticle } from './wording.js';

/**
 * Step 1 of a turn: decide from the contact's latest text alone. Rules run in order and the
 * first that fires wins (see the module comment of offline-rule-model.ts).
 */
export function stepOnePlan(ctx: RuleContext, userText: string): Plan {
  const textWords = words(userText);
  return (
    humanRequestRule(ctx, textWords) ??
    flowRule(ctx, textWords) ??
    choiceFieldRule(ctx, textWords) ??
    faqRule(ctx, userText) ??
    greetingPlan(ctx, 'greeting')
  );
}

const HUMAN_PHRASES = ['human', 'agent', 'person', 'someone real', 'representative', 'talk to a real'];

/** (a) A request for a person. "in person" (a visit) is not one. */
function humanRequestRule(ctx: RuleContext, textWords: string[]): Plan | undefined {
  const asks = HUMAN_PHRASES.some((phrase) => {
    const at = findPhrase(textWords, phrase);
    return at >= 0 && !(phrase === 'person' && textWords[at - 1] === 'in');
  });
  if (!asks) return undefined;
  return {
    rule: 'human-request',
    calls: [],
    reply: {
      text: ctx.config.handoff.reply,
      escalate: true,
      confidence: 0.9,
      reason: 'The contact asked to talk to a person.',
    },
  };
}

/** A flow is mentioned by its name (underscores read as spaces) or by one of its keywords. */
function mentionsFlow(textWords: string[], flow: FlowConfig): boolean {
  return [flow.name, ...flow.keywords].some((phrase) => containsPhrase(textWords, phrase));
}

/** (b) Stage the first mentioned flow (config order) and say it is on its way. */
function flowRule(ctx: RuleContext, textWords: string[]): Plan | undefined {
  const tool = callableInstance(ctx, 'send_flow');
  const flow = tool && ctx.config.flows.find((f) => mentionsFlow(textWords, f));
  if (!tool || !flow) return undefined;
  return {
    rule: 'flow-request',
    calls: [{ toolName: tool.name, input: { flow: flow.name } }],
    reply: {
      text: sendingFlowText(flow),
      escalate: false,
      confidence: 0.9,
      reason: `The contact asked for ${withArticle(flow.description)} (flow "${flow.name}").`,
    },
  };
}

/** A choice as the field's type wants it; choices are strings in the config. */
function typedChoice(field: FieldConfig, choice: string): InputValue {
  if (field.type === 'number' && Number.isFinite(Number(choice))) return Number(choice);
  if (field.type === 'boolean' && /^(true|false)$/i.test(choice)) return choice.toLowerCase() === 'true';
  return choice;
}

/** (c) Record the first mentioned choice of a choice field (fields, then choices, in config order). */
function choiceFieldRule(ctx: RuleContext, textWords: string[]): Plan | undefined {
  const tool = callableInstance(ctx, 'set_field');
  if (!tool) return undefined;
  for (const field of ctx.config.fields) {
    const choice = field.choices?.find((c) => containsPhrase(textWords, c));
    if (choice === undefined) continue;
    const value = typedChoice(field, choice);
    return {
      rule: 'field-choice',
      calls: [{ toolName: tool.name, input: { field: field.name, value } }],
      reply: {
        text: notingFieldText(field.name, value),
        escalate: false,
        confidence: 0.85,
        reason: `The contact gave "${choice}" for the field "${field.name}".`,
      },
    };
  }
  return undefined;
}

const MAX_QUERY = 200;

/** (d) A question, or text close to an FAQ question: search first, answer in step 2. */
function faqRule(ctx: RuleContext, userText: string): Plan | undefined {
  const tool = callableInstance(ctx, 'search_faq');
  if (!tool) return undefined;
  const nearFaq = ctx.config.faq.some((entry) => sharedSignificantWords(userText, entry.question) >= 2);
  if (!nearFaq && !userText.includes('?')) return undefined;
  const query = userText.replace(/\s+/g, ' ').trim().slice(0, MAX_QUERY);
  return { rule: 'faq-search', calls: [{ toolName: tool.name, input: { query } }] };
}

/** (e) Reply only: greet in the persona's tone and say what the agent can do. */
export function greetingPlan(ctx: RuleContext, rule: string): Plan {
  const flows = callableInstance(ctx, 'send_flow') ? ctx.config.flows : [];
  const canSearch = callableInstance(ctx, 'search_faq') !== undefined;
  const offer = flows.length
    ? `I can help you with ${listPhrase(flows.map((f) => withArticle(f.description)))}.`
    : canSearch
      ? `Ask me anything about ${ctx.config.displayName}.`
      : 'How can I help you today?';
  const buttons = quickReplies(flows.map((f) => f.name));
  return {
    rule,
    calls: [],
    reply: {
      text: `${greetingOpener(ctx.config)} ${offer}`,
      escalate: false,
      confidence: 0.7,
      reason: 'No specific request recognised; greeted and listed what I can help with.',
      ...(buttons.length ? { quickReplies: buttons } : {}),
    },
  };
}
