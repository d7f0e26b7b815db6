import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve } from 'node:path';
import { z } from 'zod';

/**
 * The eval case format (one JSON file per case; documented in evals/README.md). A case names a
 * tenant (the demo tenant plus overrides), a sequence of turns (each one inbound ManyChat text,
 * delivered once, repeated or concurrently), the model's scripted steps per turn, ManyChat faults,
 * and what must happen.
 */

const ReplyShorthandSchema = z
  .object({
    text: z.string(),
    escalate: z.boolean().optional(),
    confidence: z.number().optional(),
    reason: z.string().optional(),
    quickReplies: z.array(z.string()).optional(),
  })
  .strict();

export const CaseStepSchema = z
  .object({
    /** Tool calls in order (not the reply; use `reply`). */
    calls: z.array(z.object({ tool: z.string().min(1), input: z.unknown().optional(), arguments: z.string().optional() }).strict()).optional(),
    /** A last `reply` call; escalate, confidence and reason default to false, 0.9, "scripted". */
    reply: ReplyShorthandSchema.optional(),
    /** A last `reply` call sent exactly as given (for replies that break the schema). */
    replyRaw: z.unknown().optional(),
    /** Plain assistant text instead of tool calls. */
    text: z.string().optional(),
    /** Fixed latency of this model call. Absent (and no `latency`): drawn from the latency model. */
    latencyMs: z.number().min(0).max(120_000).optional(),
    /** "model": draw this call's latency from evals/latency-model.ts (the default). */
    latency: z.literal('model').optional(),
    /** The model call fails with this HTTP status and OpenAI error message. */
    error: z.object({ status: z.number().int().min(400).max(599), message: z.string() }).strict().optional(),
  })
  .strict()
  .refine((s) => !(s.latency && s.latencyMs !== undefined), { message: 'give either latency: "model" or latencyMs, not both' })
  .refine((s) => !(s.reply && s.replyRaw !== undefined), { message: 'give either reply or replyRaw, not both' });
export type CaseStep = z.infer<typeof CaseStepSchema>;

export const ActionExpectSchema = z
  .object({
    kind: z.string(),
    /** The tool that staged it, or "system:handoff" for the handoff. */
    tool: z.string().optional(),
    /** Key arguments; each one given must be equal (others are ignored). */
    args: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ActionExpect = z.infer<typeof ActionExpectSchema>;

export const PerformedCallNames = ['sendFlow', 'sendContent', 'addTag', 'removeTag', 'setField'] as const;
export const PerformedExpectSchema = z
  .object({
    call: z.enum(PerformedCallNames),
    /** sendFlow: the flow's name in the tenant config (compared through its namespace). */
    flow: z.string().optional(),
    /** addTag / removeTag: the tag's name. */
    tag: z.string().optional(),
    /** setField: the field's name and value. */
    field: z.string().optional(),
    value: z.unknown().optional(),
    /** sendContent: a substring of the sent text. */
    textContains: z.string().optional(),
  })
  .strict();
export type PerformedExpect = z.infer<typeof PerformedExpectSchema>;

const decision = z.enum(['pass', 'veto', 'escalate', 'error']);

const ExpectationBase = z
  .object({
    /** HTTP status of every delivery. Default 200. */
    status: z.number().int().optional(),
    decision: decision.optional(),
    /** Substrings of the turn record's decisionReason (case-insensitive), e.g. the deciding guardrail's name. */
    reasonContains: z.array(z.string()).optional(),
    /** Substrings of the webhook's reply text (case-insensitive). */
    replyContains: z.array(z.string()).optional(),
    replyNotContains: z.array(z.string()).optional(),
    /** The reply text is empty (no message sent back, e.g. a contact already with a human). */
    replyEmpty: z.boolean().optional(),
    /** Exactly these staged actions, in order. */
    staged: z.array(ActionExpectSchema).optional(),
    /** Exactly these actions handed to the outbox, in order. */
    committed: z.array(ActionExpectSchema).optional(),
    /** Exactly these successful ManyChat calls for the contact, in order, after the outbox settles. */
    performed: z.array(PerformedExpectSchema).optional(),
    /** Every ManyChat call for the contact, including refused and faulted attempts. */
    apiCalls: z.number().int().min(0).optional(),
    /** The webhook answered before the turn finished (header x-turn-deferred: 1, or the record says so). */
    deferred: z.boolean().optional(),
    /** Model calls this turn made (counted at the model sandbox). */
    modelCalls: z.number().int().min(0).optional(),
    /** Substrings of the last model request of the turn (its messages, as JSON). */
    promptContains: z.array(z.string()).optional(),
    /** Distinct x-turn-id values over the deliveries. */
    distinctTurns: z.number().int().min(0).optional(),
    /** Deliveries answered with x-duplicate-of. */
    duplicates: z.number().int().min(0).optional(),
    /** Every delivery got the same reply text. */
    sameReply: z.boolean().optional(),
  })
  .strict();

export const ExpectationSchema = ExpectationBase.extend({
  /** Alternatives: the turn passes if the base expectations and any one alternative hold. */
  anyOf: z.array(ExpectationBase).min(1).optional(),
  /** How long to wait for the outbox to perform (ms). Default 15000. */
  performedTimeoutMs: z.number().int().min(0).max(120_000).optional(),
}).strict();
export type Expectation = z.infer<typeof ExpectationSchema>;
export type ExpectationCore = z.infer<typeof ExpectationBase>;

export const FaultSchema = z
  .object({
    /** Exact path or "/"-led suffix, e.g. "/sendFlow", "/addTagByName". */
    path: z.string().optional(),
    kind: z.enum(['429', '500', 'hang']),
    count: z.number().int().min(1).max(100).default(1),
    retryAfterSeconds: z.number().int().min(0).optional(),
  })
  .strict();
export type CaseFault = z.infer<typeof FaultSchema>;

export const TurnSchema = z
  .object({
    /** What the contact wrote (ManyChat {{last_input_text}}). */
    text: z.string().min(1),
    /** Contact alias within the case (each alias is a fresh sandbox subscriber). Default "main". */
    contact: z.string().default('main'),
    firstName: z.string().default('Ada'),
    customFields: z.record(z.string(), z.unknown()).optional(),
    /** contact.last_interaction as ManyChat sends it. */
    lastInteraction: z.string().optional(),
    /** message_key sent with the delivery. Default: unique per turn. false: none (the Worker derives one). */
    messageKey: z.union([z.string(), z.literal(false)]).optional(),
    /** wrapped: {contact, text, message_key}; bare: the Full Contact Data object with last_input_text. */
    body: z.enum(['wrapped', 'bare']).default('wrapped'),
    /** How the same delivery is sent: once, repeated one after another, or concurrently. */
    deliveries: z
      .object({ count: z.number().int().min(1).max(50), mode: z.enum(['sequential', 'concurrent']).default('sequential'), gapMs: z.number().int().min(0).max(10_000).default(0) })
      .strict()
      .default({ count: 1, mode: 'sequential', gapMs: 0 }),
    /** The model's scripted steps, one per model call. */
    model: z.array(CaseStepSchema).default([]),
    /** ManyChat faults injected (on this case's page) before the turn. */
    faults: z.array(FaultSchema).default([]),
    expect: ExpectationSchema.default({}),
    /** Expectations checked instead of `expect` with --live (a real model does not follow scripts). */
    liveExpect: ExpectationSchema.optional(),
  })
  .strict();
export type CaseTurn = z.infer<typeof TurnSchema>;

export const CaseSchema = z
  .object({
    /** Default: the file name without extension. */
    name: z.string().min(1).optional(),
    description: z.string().default(''),
    tags: z.array(z.string()).default([]),
    tenant: z
      .object({
        /** Deep-merged over the demo tenant (dev/demo-tenant.ts): objects merge, arrays and scalars replace, null removes. */
        overrides: z.record(z.string(), z.unknown()).default({}),
      })
      .strict()
      .default({ overrides: {} }),
    /** Needs a scripted model (errors, slowness): not run with --live. */
    scriptedOnly: z.boolean().default(false),
    /** Also run the naive two-step variant (default: automatically for staging-only cases). */
    baseline: z.boolean().optional(),
    turns: z.array(TurnSchema).min(1),
  })
  .strict();
export type EvalCase = z.infer<typeof CaseSchema> & { name: string; file: string };

export class CaseFormatError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
    this.name = 'CaseFormatError';
  }
}

export function parseCase(raw: unknown, file: string): EvalCase {
  const parsed = CaseSchema.safeParse(raw);
  if (!parsed.success) throw new CaseFormatError(file, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  const name = parsed.data.name ?? basename(file, extname(file));
  return { ...parsed.data, name, file };
}

async function listJson(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listJson(full)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(full);
  }
  return out.sort();
}

/** Loads every `*.json` under `dir` (recursively), sorted by path. Throws on the first bad file, naming it. */
export async function loadCases(dir: string): Promise<EvalCase[]> {
  const root = resolve(dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new Error(`cases directory ${root} does not exist`);
  const files = await listJson(root);
  if (!files.length) throw new Error(`no *.json cases under ${root}`);
  const cases: EvalCase[] = [];
  const names = new Map<string, string>();
  for (const file of files) {
    const fromCwd = relative(process.cwd(), file);
    const rel = fromCwd && !fromCwd.startsWith('..') ? fromCwd : file;
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      throw new CaseFormatError(rel, [`not valid JSON: ${err instanceof Error ? err.message : String(err)}`]);
    }
    const c = parseCase(raw, rel);
    const clash = names.get(c.name);
    if (clash) throw new CaseFormatError(rel, [`case name "${c.name}" is also used by ${clash}`]);
    names.set(c.name, rel);
    cases.push(c);
  }
  return cases;
}

/** The reply input the model is scripted to send, with the shorthand's defaults filled in. */
export function replyInput(step: CaseStep): unknown {
  if (step.replyRaw !== undefined) return step.replyRaw;
  if (!step.reply) return undefined;
  return { escalate: false, confidence: 0.9, reason: 'scripted', ...step.reply };
}

/** Objects merge recursively; arrays and scalars replace; `null` removes the key. */
export function deepMerge<T>(base: T, override: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(override)) return (override === undefined ? base : override) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete out[k];
    else out[k] = k in out ? deepMerge(out[k], v) : v;
  }
  return out as T;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
