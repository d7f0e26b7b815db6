/**
 * The offline rule model: a real AI SDK `LanguageModelV4` that needs no network and no key, so
 * the whole product runs and demos offline. It is deterministic (same call options → same
 * output) and is named as such wherever it is used (`modelId: 'offline-rule-model'`).
 *
 * It sees only what a hosted model sees: `options.prompt` (system + messages, including the
 * previous step's tool calls and results), `options.tools`, `options.toolChoice` and
 * `abortSignal`. Its rules read the tenant config captured at construction to know which tool
 * name is which kind, and the flows, fields and FAQ. It only ever calls a tool that is a function
 * tool in `options.tools` and allowed by `toolChoice` (for a kind, the tenant's first instance
 * that is also offered); the reply goes through the `reply` tool.
 *
 * Rules (the first that fires wins):
 * 1. Step 2 (the prompt ends with a `tool` message): reply from the previous step's results,
 *    one sentence per result, confidence 0.8 unless said otherwise, no staging:
 *    - search_faq → the best entry's answer (highest `score`, else the first entry with an
 *      `answer`; else a tenant FAQ id; else an "A:" line; else a tenant FAQ question quoted in
 *      the text; else the text itself). Nothing
 *      found → "couldn't find an answer", confidence 0.4 (below the default threshold, so code
 *      escalates the turn; text never does).
 *    - lookup_contact → "Here's what I have on file for you: key: value; …".
 *    - status `denied` (envelope, or an SDK `execution-denied`) → "Sorry, I can't send that."
 *      plus the allowed names if the denial lists them (an `allowed…` array or the text after
 *      "allowed:"), offered as quick replies for flows and fields.
 *    - error output or status `error` → an apology, confidence 0.5.
 *    - staged/ok writes → restated in the future tense ("Sending you the … now.").
 *    - a result for `reply` (it has no execute, so product code sent it back: the reply was
 *      discarded) → reply again: the results above if any, else the last reply re-sent.
 *    Results are read tolerantly: `{content, effects, status}` envelopes or plain content, as
 *    `json`, `text` (JSON inside is parsed) or `content` outputs.
 * 2. Step 1, on the last user message's text (whole-word, case-insensitive; plain plurals match):
 *    a. asks for a human ("human", "agent", "person" but not "in person", "someone real",
 *       "representative", "talk to a real") → reply with the tenant's handoff text,
 *       escalate true, confidence 0.9.
 *    b. names a flow (its name, underscores read as spaces, or a keyword; first flow in config
 *       order) and a send_flow tool is offered → send_flow `{flow}` + reply "Sending you the
 *       <description> now." (staged, so never "sent"), confidence 0.9.
 *    c. names a choice of a choice field and a set_field tool is offered → set_field
 *       `{field, value}` (typed by the field) + reply "Got it, I'll note …", confidence 0.85.
 *    d. shares ≥2 significant words (≥3 letters, not a stop word) with an FAQ question, or
 *       contains "?", and a search_faq tool is offered → only search_faq `{query}`; step 2 replies.
 *    e. otherwise → a greeting in the persona's tone (formal / playful / friendly, from words in
 *       the persona) listing the flow descriptions, confidence 0.7, with up to 3 quick replies
 *       (flow names as typed, ≤20 chars).
 * 3. Calls are ordered staging/read first, reply last. Ids are `call_<step>_<n>_<fingerprint>`:
 *    step = earlier assistant messages + 1, n = position, fingerprint = FNV-1a of the prompt, so
 *    ids are deterministic yet do not repeat across turns even when history is truncated.
 *    If `reply` is not callable (absent, or `toolChoice` forbids it) the reply text is emitted
 *    as a text part instead. Finish reason: `tool-calls` when any call is emitted, else `stop`.
 * 4. Usage counts whitespace-separated words as tokens (prompt and tool definitions in, emitted
 *    inputs out). `latencyMs` delays each call and honours `abortSignal` (rejects with the
 *    signal's reason, an AbortError by default).
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { REPLY_TOOL_NAME, type Plan, type RuleContext } from './offline-rule-model/plan.js';
import {
  assistantMessageCount,
  callableToolNames,
  endsWithToolResults,
  latestUserText,
  promptTranscript,
} from './offline-rule-model/prompt-reading.js';
import { stepOnePlan } from './offline-rule-model/step-one.js';
import { stepTwoPlan } from './offline-rule-model/step-two.js';
import { countTokens, fingerprint } from './offline-rule-model/text-match.js';

export const OFFLINE_RULE_MODEL_ID = 'offline-rule-model';
export const OFFLINE_RULE_MODEL_PROVIDER = 'staged-agent';

export interface OfflineRuleModelOptions {
  /** Simulated model latency per call, in ms (default 0). Abort-aware. */
  latencyMs?: number;
}

export function createOfflineRuleModel(config: TenantConfig, opts: OfflineRuleModelOptions = {}): LanguageModelV4 {
  const latencyMs = Math.max(0, opts.latencyMs ?? 0);
  return {
    specificationVersion: 'v4',
    provider: OFFLINE_RULE_MODEL_PROVIDER,
    modelId: OFFLINE_RULE_MODEL_ID,
    supportedUrls: {},
    async doGenerate(options) {
      await abortableDelay(latencyMs, options.abortSignal);
      return respond(config, options);
    },
    async doStream(options) {
      await abortableDelay(latencyMs, options.abortSignal);
      return { stream: toStream(respond(config, options), options.abortSignal) };
    },
  };
}

/** The whole decision, shared by doGenerate and doStream so both always agree. */
function respond(config: TenantConfig, options: LanguageModelV4CallOptions): LanguageModelV4GenerateResult {
  const ctx: RuleContext = { config, callable: callableToolNames(options) };
  const plan = endsWithToolResults(options.prompt)
    ? stepTwoPlan(ctx, options.prompt)
    : stepOnePlan(ctx, latestUserText(options.prompt));
  const transcript = promptTranscript(options);
  const ids = { step: assistantMessageCount(options.prompt) + 1, fingerprint: fingerprint(transcript) };
  const content = renderPlan(plan, ctx.callable, ids);
  const toolCalls = content.some((c) => c.type === 'tool-call');
  const finishReason: LanguageModelV4FinishReason = toolCalls
    ? { unified: 'tool-calls', raw: 'tool_calls' }
    : { unified: 'stop', raw: 'stop' };
  return {
    content,
    finishReason,
    usage: usage(transcript, content),
    response: { id: `offline-${ids.fingerprint}`, modelId: OFFLINE_RULE_MODEL_ID },
    warnings: [],
  };
}

/** Plan → content parts: staging/read calls first, the reply last (as text if `reply` is not callable). */
function renderPlan(
  plan: Plan,
  callable: ReadonlySet<string>,
  ids: { step: number; fingerprint: string },
): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  const nextId = () => `call_${ids.step}_${content.length + 1}_${ids.fingerprint}`;
  for (const call of plan.calls) {
    // The rules already pick offered tools; this guard keeps "never call what is not offered" true by construction.
    if (!callable.has(call.toolName)) continue;
    content.push({
      type: 'tool-call',
      toolCallId: nextId(),
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    });
  }
  if (!plan.reply) return content;
  if (callable.has(REPLY_TOOL_NAME)) {
    content.push({
      type: 'tool-call',
      toolCallId: nextId(),
      toolName: REPLY_TOOL_NAME,
      input: JSON.stringify(plan.reply),
    });
  } else {
    content.push({ type: 'text', text: plan.reply.text });
  }
  return content;
}

function usage(transcript: string, content: LanguageModelV4Content[]): LanguageModelV4Usage {
  const input = countTokens(transcript);
  const output = content.reduce(
    (n, c) => n + (c.type === 'tool-call' ? countTokens(c.input) : c.type === 'text' ? countTokens(c.text) : 0),
    0,
  );
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** The same result as stream parts, in the order hosted providers emit them. */
function streamParts(result: LanguageModelV4GenerateResult): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (result.response)
    parts.push({ type: 'response-metadata', id: result.response.id, modelId: result.response.modelId });
  result.content.forEach((c, i) => {
    if (c.type === 'tool-call') {
      parts.push(
        { type: 'tool-input-start', id: c.toolCallId, toolName: c.toolName },
        { type: 'tool-input-delta', id: c.toolCallId, delta: c.input },
        { type: 'tool-input-end', id: c.toolCallId },
        c,
      );
    } else if (c.type === 'text') {
      const id = `text_${i}`;
      parts.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: c.text }, { type: 'text-end', id });
    }
  });
  parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return parts;
}

/** A pull stream, so an abort between parts ends it with the signal's reason. */
function toStream(
  result: LanguageModelV4GenerateResult,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  const parts = streamParts(result);
  let next = 0;
  return new ReadableStream<LanguageModelV4StreamPart>({
    pull(controller) {
      if (signal?.aborted) {
        controller.error(abortReason(signal));
        return;
      }
      const part = parts[next++];
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Waits `ms` (skipped when 0) but rejects at once when the signal is, or becomes, aborted. */
function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      if (signal) reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
