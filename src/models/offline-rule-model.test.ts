import type {
  JSONValue,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import { generateText, isStepCount, type ModelMessage, streamText, tool } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Reply, ReplySchema } from '../../core/reply.js';
import { type TenantConfig, TenantConfigSchema } from '../../core/tenant/tenant-config.js';
import { createOfflineRuleModel, OFFLINE_RULE_MODEL_ID } from './offline-rule-model.js';

const config: TenantConfig = TenantConfigSchema.parse({
  version: 1,
  tenantId: 'acme',
  displayName: 'Acme Fitness',
  persona: 'A friendly, concise assistant for Acme Fitness.',
  fallbackReply: 'Sorry, a teammate will get back to you.',
  flows: [
    {
      name: 'brochure',
      ns: 'content20240101000001_000001',
      description: 'Membership brochure (PDF)',
      keywords: ['leaflet', 'pdf'],
    },
    {
      name: 'price_list',
      ns: 'content20240101000002_000002',
      description: 'Current price list',
      keywords: ['pricing'],
    },
    {
      name: 'class_timetable',
      ns: 'content20240101000003_000003',
      description: 'Weekly class timetable',
      keywords: ['schedule'],
    },
  ],
  tags: [{ name: 'vip' }, { name: 'needs_human' }],
  fields: [
    { name: 'goal', type: 'text', choices: ['weight loss', 'muscle gain', 'endurance'] },
    { name: 'notes', type: 'text' },
  ],
  faq: [
    { id: 'hours', question: 'What are your opening hours?', answer: 'We are open 6am to 10pm every day.' },
    { id: 'parking', question: 'Is there parking at the gym?', answer: 'Yes, free parking behind the building.' },
  ],
  tools: [
    { name: 'send_media', kind: 'send_flow', description: 'Send one of the configured flows.' },
    { name: 'record_goal', kind: 'set_field', description: 'Record a choice in a custom field.' },
    { name: 'faq', kind: 'search_faq', description: 'Search the FAQ.' },
    { name: 'tag_vip', kind: 'add_tag', description: 'Tag the contact.' },
    { name: 'whoami', kind: 'lookup_contact', description: "Look up the contact's fields." },
  ],
  handoff: { tag: 'needs_human', reply: 'Of course, a member of our team will take over shortly.' },
});

type Envelope = { content: unknown; effects: []; status: 'ok' | 'staged' | 'denied' | 'error' };
const envelope = (status: Envelope['status'], content: unknown): Envelope => ({ content, effects: [], status });

interface ToolOptions {
  /** The flow tool refuses every flow, naming the allowed ones (as the product's staging tools do). */
  denyFlows?: boolean;
}

/** Real `tool()` definitions: the staging tools only record and answer "staged", `reply` has no execute. */
function buildTools(log: Array<{ tool: string; input: unknown }>, opts: ToolOptions = {}) {
  const record = (name: string, input: unknown) => log.push({ tool: name, input });
  return {
    send_media: tool({
      description: 'Send one of the configured flows.',
      inputSchema: z.object({ flow: z.string() }),
      execute: async (input) => {
        record('send_media', input);
        return opts.denyFlows
          ? envelope(
              'denied',
              `Refused: flow "${input.flow}" is not enabled for this contact. Allowed flows: price_list, class_timetable.`,
            )
          : envelope('staged', `Staged: send flow "${input.flow}" (it has not been sent yet).`);
      },
    }),
    record_goal: tool({
      description: 'Record a choice in a custom field.',
      inputSchema: z.object({ field: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) }),
      execute: async (input) => {
        record('record_goal', input);
        return envelope('staged', `Staged: set ${input.field}.`);
      },
    }),
    faq: tool({
      description: 'Search the FAQ.',
      inputSchema: z.object({ query: z.string() }),
      execute: async (input) => {
        record('faq', input);
        const q = input.query.toLowerCase();
        const hits = config.faq
          .map((entry) => ({
            entry,
            score: entry.question
              .toLowerCase()
              .split(/\W+/)
              .filter((w) => w.length > 3 && q.includes(w)).length,
          }))
          .filter((h) => h.score > 0)
          .sort((a, b) => b.score - a.score)
          .map((h) => h.entry);
        // The product's shape: an ok envelope whose content is JSON text marked as untrusted data.
        if (!hits.length) return envelope('ok', 'No FAQ entry matches.');
        return envelope('ok', `<untrusted-data source="faq">\n${JSON.stringify(hits)}\n</untrusted-data>`);
      },
    }),
    tag_vip: tool({
      description: 'Tag the contact.',
      inputSchema: z.object({ tag: z.string() }),
      execute: async (input) => {
        record('tag_vip', input);
        return envelope('staged', 'Staged.');
      },
    }),
    reply: tool({ description: 'End the turn with the reply to the contact.', inputSchema: ReplySchema }),
  };
}

function userMessage(text: string): ModelMessage[] {
  return [{ role: 'user', content: text }];
}

/** The reply of a finished generateText/streamText run, validated against the product's schema. */
function replyOf(toolCalls: ReadonlyArray<{ toolName: string; input: unknown }>): Reply {
  const replies = toolCalls.filter((c) => c.toolName === 'reply');
  expect(replies).toHaveLength(1);
  return ReplySchema.parse(replies[0]!.input);
}

function setup(opts: ToolOptions & { latencyMs?: number } = {}) {
  const log: Array<{ tool: string; input: unknown }> = [];
  const model = createOfflineRuleModel(config, { latencyMs: opts.latencyMs ?? 0 });
  const doGenerate = vi.spyOn(model, 'doGenerate');
  return { log, model, doGenerate, tools: buildTools(log, opts) };
}

/** Call options as the SDK would pass them, for tests that talk to the model directly. */
function functionTools(names: string[]): LanguageModelV4CallOptions['tools'] {
  return names.map((name) => ({ type: 'function' as const, name, inputSchema: { type: 'object' } }));
}

const ALL_TOOL_NAMES = ['faq', 'record_goal', 'reply', 'send_media', 'tag_vip', 'whoami'];

function userPrompt(text: string): LanguageModelV4Prompt {
  return [
    { role: 'system', content: 'You are the Acme Fitness assistant.' },
    { role: 'user', content: [{ type: 'text', text }] },
  ];
}

/** A step-2 prompt: the user's text, one assistant tool call, and its result. */
function stepTwoPrompt(
  text: string,
  call: { toolName: string; input: unknown },
  output: LanguageModelV4ToolResultOutput,
): LanguageModelV4Prompt {
  return [
    ...userPrompt(text),
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: call.toolName, input: call.input }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: call.toolName, output }] },
  ];
}

async function directReply(options: LanguageModelV4CallOptions) {
  const result = await createOfflineRuleModel(config).doGenerate(options);
  const calls = result.content.flatMap((c) => (c.type === 'tool-call' ? [c] : []));
  return { result, calls, reply: ReplySchema.parse(JSON.parse(calls.find((c) => c.toolName === 'reply')!.input)) };
}

describe('offline rule model: identity', () => {
  it('is a v4 language model named as the offline rule model', () => {
    const model = createOfflineRuleModel(config);
    expect(model.specificationVersion).toBe('v4');
    expect(model.provider).toBe('staged-agent');
    expect(model.modelId).toBe(OFFLINE_RULE_MODEL_ID);
    expect(OFFLINE_RULE_MODEL_ID).toBe('offline-rule-model');
    expect(model.supportedUrls).toEqual({});
  });
});

describe('offline rule model: step 1 through generateText', () => {
  it('stages a requested flow and replies in the same, single model call', async () => {
    const { log, model, doGenerate, tools } = setup();
    const result = await generateText({
      model,
      tools,
      messages: userMessage('Could you send me your brochures please'),
      // Two steps allowed, as in the product: the loop must still stop after one because `reply` has no execute.
      stopWhen: isStepCount(2),
    });
    expect(doGenerate).toHaveBeenCalledTimes(1);
    expect(result.steps).toHaveLength(1);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['send_media', 'reply']);
    expect(log).toEqual([{ tool: 'send_media', input: { flow: 'brochure' } }]);
    // The staging tool executed; the reply is a pending call with no result.
    expect(result.toolResults.map((r) => r.toolName)).toEqual(['send_media']);
    const reply = replyOf(result.toolCalls);
    expect(reply).toMatchObject({ escalate: false, confidence: 0.9 });
    expect(reply.text).toBe('Sending you the membership brochure (PDF) now.');
    expect(reply.text).not.toMatch(/\b(sent|have sent|done)\b/i);
  });

  it('matches a flow keyword and a flow name typed with spaces (what the greeting offers as a button)', async () => {
    for (const [text, flow] of [
      ['do you have a PDF leaflet?', 'brochure'],
      ['price list', 'price_list'],
      ['What is the class SCHEDULE', 'class_timetable'],
    ] as const) {
      const { log, model, tools } = setup();
      const result = await generateText({ model, tools, messages: userMessage(text) });
      expect(log, text).toEqual([{ tool: 'send_media', input: { flow } }]);
      expect(result.toolCalls.map((c) => c.toolName)).toEqual(['send_media', 'reply']);
    }
  });

  it('records a choice field value with set_field and replies together, confidence 0.85', async () => {
    const { log, model, doGenerate, tools } = setup();
    const result = await generateText({
      model,
      tools,
      messages: userMessage('My main goal is Muscle Gain'),
      stopWhen: isStepCount(2),
    });
    expect(doGenerate).toHaveBeenCalledTimes(1);
    expect(log).toEqual([{ tool: 'record_goal', input: { field: 'goal', value: 'muscle gain' } }]);
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['record_goal', 'reply']);
    const reply = replyOf(result.toolCalls);
    expect(reply).toMatchObject({ escalate: false, confidence: 0.85 });
    expect(reply.text).toContain('muscle gain');
  });

  it('escalates a request for a human, before any other rule (even with a flow word in it)', async () => {
    const { log, model, tools } = setup();
    const result = await generateText({
      model,
      tools,
      messages: userMessage('Can I talk to a real human about the brochure?'),
    });
    expect(log).toEqual([]);
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['reply']);
    const reply = replyOf(result.toolCalls);
    expect(reply).toMatchObject({ escalate: true, confidence: 0.9, text: config.handoff.reply });
  });

  it('does not read "in person" as a request for a human', async () => {
    const { model, tools } = setup();
    const result = await generateText({ model, tools, messages: userMessage('Can I visit in person?') });
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['faq']);
  });

  it('greets an unmatched message in the persona tone, listing the flows, with quick replies', async () => {
    const { log, model, tools } = setup();
    const result = await generateText({ model, tools, messages: userMessage('hello there') });
    expect(log).toEqual([]);
    const reply = replyOf(result.toolCalls);
    expect(reply).toEqual({
      text: 'Hi there! Welcome to Acme Fitness. I can help you with the membership brochure (PDF), the current price list and the weekly class timetable.',
      escalate: false,
      confidence: 0.7,
      reason: expect.any(String),
      quickReplies: ['brochure', 'price list', 'class timetable'],
    });
  });

  it('uses a formal opener for a formal persona', async () => {
    const formal = TenantConfigSchema.parse({
      ...config,
      persona: 'Formal and professional front desk of a law firm.',
    });
    const { tools } = setup();
    const result = await generateText({ model: createOfflineRuleModel(formal), tools, messages: userMessage('hi') });
    expect(replyOf(result.toolCalls).text).toMatch(/^Hello, and welcome to Acme Fitness\./);
  });
});

describe('offline rule model: FAQ in two steps', () => {
  it('searches in step 1, then answers from the result when called again with the response messages', async () => {
    const { log, model, doGenerate, tools } = setup();
    const messages = userMessage('What are your opening hours on Sunday?');
    const first = await generateText({ model, tools, messages });
    expect(first.toolCalls.map((c) => c.toolName)).toEqual(['faq']);
    expect(log).toEqual([{ tool: 'faq', input: { query: 'What are your opening hours on Sunday?' } }]);
    expect(first.toolResults).toHaveLength(1);

    const second = await generateText({ model, tools, messages: [...messages, ...first.responseMessages] });
    expect(doGenerate).toHaveBeenCalledTimes(2);
    expect(second.toolCalls.map((c) => c.toolName)).toEqual(['reply']);
    const reply = replyOf(second.toolCalls);
    expect(reply).toMatchObject({ escalate: false, confidence: 0.8, text: 'We are open 6am to 10pm every day.' });
    expect(log).toHaveLength(1); // step 2 read and staged nothing
  });

  it('runs both steps inside one generateText when the loop allows two steps', async () => {
    const { model, doGenerate, tools } = setup();
    const result = await generateText({
      model,
      tools,
      messages: userMessage('parking at the gym'), // no "?": two shared FAQ words suffice
      stopWhen: isStepCount(2),
    });
    expect(doGenerate).toHaveBeenCalledTimes(2);
    expect(result.steps.map((s) => s.toolCalls.map((c) => c.toolName))).toEqual([['faq'], ['reply']]);
    expect(replyOf(result.finalStep.toolCalls).text).toBe('Yes, free parking behind the building.');
  });

  it('replies with low confidence (so code escalates) when the search finds nothing', async () => {
    const { model, tools } = setup();
    const messages = userMessage('Do you sell protein bars?');
    const first = await generateText({ model, tools, messages });
    const second = await generateText({ model, tools, messages: [...messages, ...first.responseMessages] });
    const reply = replyOf(second.toolCalls);
    expect(reply.confidence).toBeLessThan(config.thresholds.minConfidence);
    expect(reply.escalate).toBe(false);
    expect(reply.text).toMatch(/couldn't find/);
  });
});

describe('offline rule model: only offered tools', () => {
  it('never calls a tenant tool that is not in options.tools', async () => {
    const { log, model, tools } = setup();
    const { send_media: _omitted, ...withoutFlows } = tools;
    const result = await generateText({ model, tools: withoutFlows, messages: userMessage('send me the brochure') });
    expect(log).toEqual([]);
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['reply']);
    // Without a flow tool it cannot offer flows, so it does not list them either.
    const reply = replyOf(result.toolCalls);
    expect(reply.text).not.toMatch(/brochure/i);
    expect(reply.quickReplies).toBeUndefined();
  });

  it('does not call an offered tool that is no instance of the kind in the config', async () => {
    // A tool literally named after the kind, but the tenant's send_flow instance is `send_media` (not offered).
    const result = await createOfflineRuleModel(config).doGenerate({
      prompt: userPrompt('send me the brochure'),
      tools: functionTools(['send_flow', 'reply']),
    });
    expect(result.content.map((c) => (c.type === 'tool-call' ? c.toolName : c.type))).toEqual(['reply']);
  });

  it('calls only offered tools across many messages and tool subsets', async () => {
    const model = createOfflineRuleModel(config);
    const texts = ['brochure', 'my goal is endurance', 'opening hours?', 'a human please', 'hi', 'pricing'];
    const subsets = [['reply'], ['reply', 'faq'], ['reply', 'record_goal'], ['send_media'], ALL_TOOL_NAMES];
    for (const text of texts) {
      for (const subset of subsets) {
        const result = await model.doGenerate({ prompt: userPrompt(text), tools: functionTools(subset) });
        for (const part of result.content) {
          if (part.type === 'tool-call') expect(subset, `${text} / ${subset.join(',')}`).toContain(part.toolName);
        }
      }
    }
  });

  it('answers in plain text with finish reason stop when toolChoice is none', async () => {
    const result = await createOfflineRuleModel(config).doGenerate({
      prompt: userPrompt('send me the brochure'),
      tools: functionTools(ALL_TOOL_NAMES),
      toolChoice: { type: 'none' },
    });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Hi there!/) }]);
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
  });

  it('honours toolChoice required (what the product passes) and a forced single tool', async () => {
    const model = createOfflineRuleModel(config);
    const required = await model.doGenerate({
      prompt: userPrompt('send me the brochure'),
      tools: functionTools(ALL_TOOL_NAMES),
      toolChoice: { type: 'required' },
    });
    expect(required.content.map((c) => (c.type === 'tool-call' ? c.toolName : c.type))).toEqual([
      'send_media',
      'reply',
    ]);
    const forced = await model.doGenerate({
      prompt: userPrompt('send me the brochure'),
      tools: functionTools(ALL_TOOL_NAMES),
      toolChoice: { type: 'tool', toolName: 'reply' },
    });
    expect(forced.content.map((c) => (c.type === 'tool-call' ? c.toolName : c.type))).toEqual(['reply']);
    // The flow tool was not callable, so the reply must not promise the flow.
    const forcedReply =
      forced.content[0]?.type === 'tool-call' ? ReplySchema.parse(JSON.parse(forced.content[0].input)) : undefined;
    expect(forcedReply?.text).toMatch(/^Hi there!/);
  });
});

describe('offline rule model: step 2 from tool results', () => {
  it('after a denied staging call and a discarded reply, replies with the allowed names', async () => {
    const { log, model, tools } = setup({ denyFlows: true });
    const messages = userMessage('send me the brochure');
    const first = await generateText({ model, tools, messages });
    expect(first.toolCalls.map((c) => c.toolName)).toEqual(['send_media', 'reply']);
    expect(first.toolResults[0]?.output).toMatchObject({ status: 'denied' });

    // What the product's loop does: the reply of a step with a denied call is discarded and sent back.
    const replyCall = first.toolCalls.find((c) => c.toolName === 'reply')!;
    const discarded: ModelMessage = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: replyCall.toolCallId,
          toolName: 'reply',
          output: { type: 'text', value: 'Reply discarded: a staging call in this step was denied. Reply again.' },
        },
      ],
    };
    const second = await generateText({ model, tools, messages: [...messages, ...first.responseMessages, discarded] });
    expect(second.toolCalls.map((c) => c.toolName)).toEqual(['reply']);
    const reply = replyOf(second.toolCalls);
    expect(reply.text).toBe("Sorry, I can't send that. What I can offer: price list, class timetable.");
    expect(reply).toMatchObject({ escalate: false, confidence: 0.8, quickReplies: ['price list', 'class timetable'] });
    expect(log).toHaveLength(1); // step 2 staged nothing new
  });

  it('reads a denial from a plain-text envelope and from an allowed array', async () => {
    const asText = await directReply({
      prompt: stepTwoPrompt(
        'goal: yoga',
        { toolName: 'record_goal', input: { field: 'goal', value: 'yoga' } },
        {
          type: 'text',
          value: JSON.stringify(
            envelope(
              'denied',
              'Value "yoga" is not a choice of goal; allowed values: "weight loss", "muscle gain" or "endurance".',
            ),
          ),
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(asText.reply.text).toBe(
      "Sorry, I couldn't record that. What I can offer: weight loss, muscle gain, endurance.",
    );
    const asArray = await directReply({
      prompt: stepTwoPrompt(
        'tag me',
        { toolName: 'tag_vip', input: { tag: 'gold' } },
        {
          type: 'json',
          value: { content: { message: 'Unknown tag.', allowed: ['vip'] }, effects: [], status: 'denied' },
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(asArray.reply.text).toBe("Sorry, I couldn't update that. What I can offer: vip.");
    const noneAllowed = await directReply({
      prompt: stepTwoPrompt(
        'brochure',
        { toolName: 'send_media', input: { flow: 'brochure' } },
        {
          type: 'json',
          value: envelope('denied', 'Refused: flow "brochure" is not configured. Allowed flows: none.') as JSONValue,
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(noneAllowed.reply.text).toBe("Sorry, I can't send that.");
    expect(noneAllowed.reply.quickReplies).toBeUndefined();
    const unlisted = await directReply({
      prompt: stepTwoPrompt(
        'goal: yoga',
        { toolName: 'record_goal', input: { field: 'goal', value: 'yoga' } },
        {
          type: 'json',
          value: envelope('denied', 'Refused: "yoga" is not a valid choice for this field.') as JSONValue,
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(unlisted.reply.text).toBe("Sorry, I couldn't record that.");
  });

  it('summarises a contact lookup and treats an SDK error output as an apology', async () => {
    const lookup = await directReply({
      prompt: stepTwoPrompt(
        'what do you know about me',
        { toolName: 'whoami', input: {} },
        {
          type: 'json',
          value: { contact_id: '123', name: 'Ana', fields: { goal: 'endurance', visits: 3 } },
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(lookup.reply.text).toBe("Here's what I have on file for you: name: Ana; goal: endurance; visits: 3.");
    const failed = await directReply({
      prompt: stepTwoPrompt(
        'hours?',
        { toolName: 'faq', input: { query: 'hours?' } },
        { type: 'error-text', value: 'timeout' },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(failed.reply).toMatchObject({ confidence: 0.5, escalate: false });
    expect(failed.calls).toHaveLength(1);
  });

  it('answers from a plain-text FAQ result, a bare JSON array (best score) and the first of unscored hits', async () => {
    const text = await directReply({
      prompt: stepTwoPrompt(
        'hours?',
        { toolName: 'faq', input: { query: 'hours?' } },
        {
          type: 'text',
          value: 'Q: What are your opening hours?\nA: 6am to 10pm daily.',
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(text.reply.text).toBe('6am to 10pm daily.');
    const scored = await directReply({
      prompt: stepTwoPrompt(
        'parking?',
        { toolName: 'faq', input: { query: 'parking?' } },
        {
          type: 'json',
          value: [
            { id: 'hours', answer: 'Open late.', score: 0.2 },
            { id: 'parking', answer: 'Free parking.', score: 0.9 },
          ],
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(scored.reply.text).toBe('Free parking.');
    const marked = await directReply({
      prompt: stepTwoPrompt(
        'gym?',
        { toolName: 'faq', input: { query: 'gym?' } },
        {
          type: 'json',
          value: envelope(
            'ok',
            `<untrusted-data source="faq">\n${JSON.stringify([config.faq[1], config.faq[0]])}\n</untrusted-data>`,
          ) as JSONValue,
        },
      ),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(marked.reply.text).toBe(config.faq[1]!.answer);
  });
});

describe('offline rule model: streaming', () => {
  it('works with streamText: the flow is staged and the reply arrives in the same step', async () => {
    const { log, model, tools } = setup();
    const result = streamText({ model, tools, messages: userMessage('brochure please'), stopWhen: isStepCount(2) });
    const types: string[] = [];
    for await (const part of result.stream) types.push(part.type);
    const toolCalls = await result.toolCalls;
    expect(toolCalls.map((c) => c.toolName)).toEqual(['send_media', 'reply']);
    expect(log).toEqual([{ tool: 'send_media', input: { flow: 'brochure' } }]);
    expect(replyOf(toolCalls).text).toBe('Sending you the membership brochure (PDF) now.');
    expect(types).toEqual(
      expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'finish']),
    );
    expect((await result.steps).length).toBe(1);
  });

  it('doStream emits stream-start, tool input parts, tool calls and finish matching doGenerate', async () => {
    const model = createOfflineRuleModel(config);
    const options: LanguageModelV4CallOptions = {
      prompt: userPrompt('brochure please'),
      tools: functionTools(ALL_TOOL_NAMES),
    };
    const generated = await model.doGenerate(options);
    const { stream } = await model.doStream(options);
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts[0]).toEqual({ type: 'stream-start', warnings: [] });
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: generated.finishReason, usage: generated.usage });
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual(generated.content);
    const deltas = parts.flatMap((p) => (p.type === 'tool-input-delta' ? [p.delta] : [])).join('');
    expect(deltas).toBe(generated.content.map((c) => (c.type === 'tool-call' ? c.input : '')).join(''));
    expect(parts.map((p) => p.type).filter((t) => t.startsWith('tool-input'))).toEqual([
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
    ]);
  });
});

describe('offline rule model: result shape, abort, determinism', () => {
  it('returns tool-calls finish reason, word-count usage and no warnings', async () => {
    const result = await createOfflineRuleModel(config).doGenerate({
      prompt: userPrompt('brochure'),
      tools: functionTools(ALL_TOOL_NAMES),
    });
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_calls' });
    expect(result.warnings).toEqual([]);
    const inputTokens = result.usage.inputTokens.total ?? 0;
    expect(inputTokens).toBeGreaterThan(0);
    expect(result.usage.inputTokens).toEqual({ total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 });
    expect(result.usage.outputTokens.total).toBeGreaterThan(0);
    expect(result.usage.outputTokens.reasoning).toBe(0);
    const ids = result.content.map((c) => (c.type === 'tool-call' ? c.toolCallId : ''));
    expect(ids).toEqual([
      expect.stringMatching(/^call_1_1_[0-9a-f]{8}$/),
      expect.stringMatching(/^call_1_2_[0-9a-f]{8}$/),
    ]);
  });

  it('rejects with the signal reason when already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    const model = createOfflineRuleModel(config);
    const options = { prompt: userPrompt('hi'), tools: functionTools(ALL_TOOL_NAMES), abortSignal: controller.signal };
    await expect(model.doGenerate(options)).rejects.toBe(reason);
    await expect(model.doStream(options)).rejects.toBe(reason);
  });

  it('aborts a slow call mid-latency, through generateText, without waiting for the latency', async () => {
    const { model, doGenerate, tools } = setup({ latencyMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const error = await generateText({
      model,
      tools,
      messages: userMessage('hi'),
      abortSignal: controller.signal,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(doGenerate).toHaveBeenCalledTimes(1); // an abort is not retried
  });

  it('waits latencyMs before answering', async () => {
    const model = createOfflineRuleModel(config, { latencyMs: 60 });
    const started = Date.now();
    await model.doGenerate({ prompt: userPrompt('hi'), tools: functionTools(ALL_TOOL_NAMES) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('is deterministic: the same input gives the same output', async () => {
    const options: LanguageModelV4CallOptions = {
      prompt: userPrompt('What are your opening hours?'),
      tools: functionTools(ALL_TOOL_NAMES),
    };
    const a = await createOfflineRuleModel(config).doGenerate(options);
    const b = await createOfflineRuleModel(config).doGenerate(structuredClone(options));
    expect(b).toEqual(a);

    const run = async () => {
      const { model, tools } = setup();
      const result = await generateText({ model, tools, messages: userMessage('send the price list') });
      return result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }));
    };
    const [first, second] = [await run(), await run()];
    expect(second).toEqual(first);
    expect(first.map((c) => c.name)).toEqual(['send_media', 'reply']);
  });

  it('gives different call ids on a later step and a later turn', async () => {
    const model = createOfflineRuleModel(config);
    const tools = functionTools(ALL_TOOL_NAMES);
    const turn1 = await model.doGenerate({ prompt: userPrompt('brochure'), tools });
    const laterPrompt: LanguageModelV4Prompt = [
      ...userPrompt('brochure'),
      { role: 'assistant', content: [{ type: 'text', text: 'Sending you the membership brochure (PDF) now.' }] },
      { role: 'user', content: [{ type: 'text', text: 'brochure' }] },
    ];
    const turn2 = await model.doGenerate({ prompt: laterPrompt, tools });
    const idsOf = (r: typeof turn1) => r.content.flatMap((c) => (c.type === 'tool-call' ? [c.toolCallId] : []));
    expect(idsOf(turn2)[0]).toMatch(/^call_2_1_/);
    expect(idsOf(turn2)).not.toEqual(expect.arrayContaining(idsOf(turn1)));
  });
});
