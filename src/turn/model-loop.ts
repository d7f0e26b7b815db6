import { generateText, type LanguageModel, type ModelMessage, type ToolResultPart } from 'ai';
import { canonicalJson } from '../../core/canonical-json.js';
import { ReplySchema, type Reply } from '../../core/reply.js';
import type { HedgeRecord, ModelStepRecord, ToolResultRecord } from '../../core/turn-record.js';
import { isNearMissEnvelope, isToolEnvelope } from '../../core/tool-envelope.js';
import { REPLY_TOOL_NAME, type TurnToolset } from '../../tools/registry.js';

/** The product's bound: a turn never makes more than two model calls. */
export const MAX_MODEL_STEPS = 2;

export type LoopOutcome =
  /** `reply` is what the turn answers; `modelReply` what the model itself said (null: it gave no reply). */
  | { kind: 'reply'; reply: Reply; modelReply: Reply | null; steps: ModelStepRecord[] }
  | { kind: 'no-reply'; why: string; steps: ModelStepRecord[] }
  | { kind: 'error'; why: string; aborted: boolean; steps: ModelStepRecord[] };

export interface LoopInput {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  toolset: TurnToolset;
  abortSignal: AbortSignal;
  /** Notes for the turn record (near-miss envelopes, ...). */
  notes: string[];
  providerOptions?: Parameters<typeof generateText>[0]['providerOptions'];
  /** Filled by a hedged model (src/models/hedged-model.ts) as its calls settle: each lands on its step's record. */
  hedges?: HedgeRecord[];
  /** Filled by a digesting model (src/models/request-digest.ts), one per call: each lands on its step's record. */
  requestDigests?: string[];
  /**
   * Set when the tools are a shortlist (tools/shortlist.ts): the full menu, offered once to step 2
   * when step 1 came back refused or in error (it may have asked for something the shortlist dropped),
   * with the instructions for that menu: the guidance step 2 reads matches the tools it is offered.
   */
  widen?: () => { toolset: TurnToolset; instructions: string };
}

function statusOf(output: unknown, notes: string[], toolName: string): ToolResultRecord['status'] {
  if (isToolEnvelope(output)) return output.status;
  if (isNearMissEnvelope(output))
    notes.push(`tool ${toolName} returned a status-bearing object that is not an envelope; treated as plain content`);
  return 'plain';
}

/**
 * Runs the model at most twice. Each call is one AI SDK step (generateText's default stop is one
 * step): read tools execute, write tools stage, and `reply` (no execute) is handed back to us.
 * The turn ends after one call only when it brought a valid reply and every other call in that
 * step came back `staged`; a read result, a refusal or an error needs the model to see it, so a
 * second call runs, and it must reply. There is no third call, whatever the model does.
 */
export async function runModelLoop(input: LoopInput): Promise<LoopOutcome> {
  const steps: ModelStepRecord[] = [];
  const messages = [...input.messages];
  let toolset = input.toolset;
  let instructions = input.instructions;
  // A valid reply held back for another step that asked for a human: that request stands (fail
  // closed). Its text and confidence were written before the model saw the results; they do not.
  let heldEscalate = false;
  for (let step = 0; step < MAX_MODEL_STEPS; step++) {
    const started = performance.now();
    const hedgesBefore = input.hedges?.length ?? 0;
    const digestsBefore = input.requestDigests?.length ?? 0;
    let result: StepResult;
    try {
      result = await callModel(input, toolset, instructions, messages);
    } catch (err) {
      const aborted = input.abortSignal.aborted;
      return {
        kind: 'error',
        why: aborted ? 'the model did not answer before the deadline' : `model call failed: ${errorText(err)}`,
        aborted,
        steps,
      };
    }
    const read = readStep(result, input, step, Math.round(performance.now() - started), hedgesBefore, digestsBefore);
    const { record } = read;
    let { reply } = read;
    steps.push(record);
    // A reply call that failed its schema (a malformed `escalate`, a confidence out of range) may
    // have been a request for a human: that step never ends on a direct answer; step 2 runs.
    const direct = step === 0 && read.replyProblem === null ? directAnswer(record, input.toolset, reply) : null;
    if (direct) {
      input.notes.push(direct.reply.reason);
      return { kind: 'reply', reply: direct.reply, modelReply: reply, steps };
    }
    if (reply && heldEscalate) reply = { ...reply, escalate: true };
    if (reply && !read.needsAnotherStep) return { kind: 'reply', reply, modelReply: reply, steps };
    if (step === MAX_MODEL_STEPS - 1) {
      if (reply) return { kind: 'reply', reply, modelReply: reply, steps };
      return {
        kind: 'no-reply',
        why: read.replyProblem ?? `the model made ${MAX_MODEL_STEPS} calls without a reply`,
        steps,
      };
    }
    if (input.widen && record.toolResults.some((r) => r.status === 'denied' || r.status === 'error')) {
      ({ toolset, instructions } = input.widen());
      input.notes.push('tool shortlist widened: step 2 offered the full tool menu after a refusal');
    }
    if (reply?.escalate) heldEscalate = true;
    messages.push(...result.responseMessages);
    const note = unansweredReplyNote(result, read.replyCallId, read.replyProblem);
    if (note) messages.push(note);
  }
  // Unreachable: the loop returns on its last step.
  return { kind: 'no-reply', why: 'loop ended', steps };
}

type StepResult = Awaited<ReturnType<typeof generateText>>;

/** One model call: one AI SDK step, a tool call required, no retries. */
function callModel(
  input: LoopInput,
  toolset: TurnToolset,
  instructions: string,
  messages: ModelMessage[],
): Promise<StepResult> {
  return generateText({
    model: input.model,
    instructions,
    messages,
    // Ours alone: history maps to user/assistant only; the one system message is the canary.
    allowSystemInMessages: true,
    tools: toolset.tools,
    toolOrder: toolset.order,
    toolChoice: 'required',
    abortSignal: input.abortSignal,
    // Retrying inside the deadline would hide latency; the turn's own fallback handles failure.
    maxRetries: 0,
    providerOptions: input.providerOptions,
    // The turn record is this product's telemetry. The SDK's own would hand the contact's words to
    // any integration registered in the isolate, and even with none it opens a tracing channel for
    // every model and tool call (npm run bench:sdk-telemetry: tens of µs a call): off.
    telemetry: { isEnabled: false },
  });
}

interface ReadStep {
  record: ModelStepRecord;
  /** The step's valid reply (several reply calls merged fail closed), or null. */
  reply: Reply | null;
  replyCallId: string | null;
  replyProblem: string | null;
  /** A read result, a refusal or an error: the model must see it, so another call runs. */
  needsAnotherStep: boolean;
}

/** What one step said: its record for the turn, its reply, and whether the model must see results. */
function readStep(
  result: StepResult,
  input: LoopInput,
  step: number,
  ms: number,
  hedgesBefore: number,
  digestsBefore: number,
): ReadStep {
  const record: ModelStepRecord = {
    step: step + 1,
    ms,
    finishReason: String(result.finishReason),
    toolCalls: [],
    toolResults: [],
    inputTokens: result.usage?.inputTokens,
    outputTokens: result.usage?.outputTokens,
    ...(input.hedges && input.hedges.length > hedgesBefore ? { hedge: input.hedges[hedgesBefore]! } : {}),
    ...(input.requestDigests && input.requestDigests.length > digestsBefore
      ? { requestDigest: input.requestDigests[digestsBefore]! }
      : {}),
  };
  const read: ReadStep = { record, reply: null, replyCallId: null, replyProblem: null, needsAnotherStep: false };
  for (const part of result.content) {
    if (part.type === 'tool-call') {
      record.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      if (part.toolName !== REPLY_TOOL_NAME) continue;
      read.replyCallId = part.toolCallId;
      const parsed = ReplySchema.safeParse(part.input);
      if (parsed.success && !(part as { invalid?: boolean }).invalid)
        read.reply = read.reply ? failClosedMerge(read.reply, parsed.data) : parsed.data;
      else read.replyProblem = 'the reply did not match its schema';
    } else if (part.type === 'tool-result') {
      const status = statusOf(part.output, input.notes, part.toolName);
      record.toolResults.push({ toolCallId: part.toolCallId, toolName: part.toolName, status, output: part.output });
      if (status !== 'staged') read.needsAnotherStep = true;
    } else if (part.type === 'tool-error') {
      record.toolResults.push({
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        status: 'error',
        output: errorText(part.error),
      });
      if (part.toolName !== REPLY_TOOL_NAME) read.needsAnotherStep = true;
    }
  }
  return read;
}

/** A reply call has no result of its own; the provider needs one before the next call. */
function unansweredReplyNote(
  result: StepResult,
  replyCallId: string | null,
  replyProblem: string | null,
): ModelMessage | null {
  if (!replyCallId) return null;
  if (
    result.responseMessages.some(
      (m) => m.role === 'tool' && m.content.some((c) => c.type === 'tool-result' && c.toolCallId === replyCallId),
    )
  )
    return null;
  const note: ToolResultPart = {
    type: 'tool-result',
    toolCallId: replyCallId,
    toolName: REPLY_TOOL_NAME,
    output: {
      type: 'text',
      value: `Not sent: ${replyProblem ?? 'another tool call in this step needs your attention'}. Actions already staged stay staged; do not stage them again. Call reply once more.`,
    },
  };
  return { role: 'tool', content: [note] };
}

/**
 * A tool declared `answers_directly` that came back `ok` is the reply (its output is written for
 * the contact) — only when its call is the turn's first tool call and nothing else was staged or
 * read beside it (identical repeats of the call are the same call). The model's own typed
 * `escalate` and `confidence`, when it gave a reply, stand: the answer's text is the tenant's,
 * the judgement is the model's. Not when the step's reply call failed its schema (the caller
 * checks): an unreadable judgement is not a confident one.
 */
function directAnswer(step: ModelStepRecord, toolset: TurnToolset, modelReply: Reply | null): { reply: Reply } | null {
  const calls = step.toolCalls.filter((c) => c.toolName !== REPLY_TOOL_NAME);
  const first = calls[0];
  if (!first || !toolset.declarations[first.toolName]?.answers_directly) return null;
  const key = canonicalJson(first.input);
  if (calls.some((c) => c.toolName !== first.toolName || canonicalJson(c.input) !== key)) return null;
  const result = step.toolResults.find((r) => r.toolCallId === first.toolCallId);
  if (!result || result.status !== 'ok' || !isToolEnvelope(result.output)) return null;
  return {
    reply: {
      text: result.output.content,
      escalate: modelReply?.escalate ?? false,
      confidence: modelReply?.confidence ?? 1,
      reason: `answered directly by ${first.toolName}`,
    },
  };
}

/**
 * A step that calls `reply` more than once (the model is told to call it exactly once) is read
 * fail closed: the last text, but an escalation in any of them stands and the lowest confidence
 * counts. Without this a model that asked for a human, then changed its mind in the same breath,
 * would have its own typed `escalate` silently dropped and its staged actions committed.
 */
export function failClosedMerge(earlier: Reply, later: Reply): Reply {
  return {
    ...later,
    escalate: earlier.escalate || later.escalate,
    confidence: Math.min(earlier.confidence, later.confidence),
  };
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 500);
  return String(err).slice(0, 500);
}
