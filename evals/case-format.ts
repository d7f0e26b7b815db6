import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { ExpectationSchema } from './case-expect-schema.js';
import { caseTimeProblem } from './relative-time.js';

export * from './case-expect-schema.js';

/**
 * The eval case format (one JSON file per case; documented in evals/CASES.md). A case names a
 * tenant (the demo tenant plus overrides) and a sequence of turns. A turn is a message the contact
 * writes, a button press on an earlier reply, or a tenant decision on an approval; each is
 * delivered once, repeated or concurrently, with the model's scripted steps, ManyChat faults, and
 * what must happen (case-expect-schema.ts).
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
    calls: z
      .array(
        z.object({ tool: z.string().min(1), input: z.unknown().optional(), arguments: z.string().optional() }).strict(),
      )
      .optional(),
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
    error: z
      .object({ status: z.number().int().min(400).max(599), message: z.string() })
      .strict()
      .optional(),
  })
  .strict()
  .refine((s) => !(s.latency && s.latencyMs !== undefined), {
    message: 'give either latency: "model" or latencyMs, not both',
  })
  .refine((s) => !(s.reply && s.replyRaw !== undefined), { message: 'give either reply or replyRaw, not both' });
export type CaseStep = z.infer<typeof CaseStepSchema>;

export const FaultSchema = z
  .object({
    /** Exact path or "/"-led suffix, e.g. "/sendFlow", "/addTagByName". */
    path: z.string().optional(),
    kind: z.enum(['429', '500', '502', '503', '504', 'hang', 'slow']),
    count: z.number().int().min(1).max(100).default(1),
    retryAfterSeconds: z.number().int().min(0).optional(),
    /** For `slow`: the sandbox performs the call, answering after this many ms. */
    delayMs: z.number().int().min(0).max(120_000).optional(),
  })
  .strict();
export type CaseFault = z.infer<typeof FaultSchema>;

/** Which pending approval a tenant decision acts on: the first still pending (true), or one a turn named with `pending[].as`. */
const DecisionTargetSchema = z.union([z.literal(true), z.string().min(1)]);

export const TurnForms = ['text', 'press', 'approve', 'reject', 'expire', 'release', 'reconfigure'] as const;
export type TurnForm = (typeof TurnForms)[number];

export const TurnSchema = z
  .object({
    /** What the contact wrote (ManyChat {{last_input_text}}). */
    text: z.string().min(1).optional(),
    /** A button press: the caption of a button ("Yes", "No", a quick reply) of the contact's previous reply. */
    press: z.string().min(1).optional(),
    /** With `press`: take the button from the reply of this turn (1-based) instead of the previous one (a replay). */
    from: z.number().int().min(1).optional(),
    /** With `press`: send a forged callback (another contact, the other answer, a broken signature). */
    tamper: z.enum(['contact', 'answer', 'sig']).optional(),
    /** A tenant decision through the tenant API (admin secret): approve / reject an approval. */
    approve: DecisionTargetSchema.optional(),
    reject: DecisionTargetSchema.optional(),
    /** Advance an approval past its expiry the way time would, then run the cron (scheduled handler). */
    expire: DecisionTargetSchema.optional(),
    /** Messenger: the tenant releases the contact's handoff (tenant API release route, admin secret): the bot answers again. */
    release: z.literal(true).optional(),
    /**
     * The tenant changes its config between turns, as a tenant does (GET then PUT …/config with the
     * admin secret): these overrides deep-merged over the tenant's current config, the same merge as
     * the case's `tenant.overrides`. A change while a confirmation or approval waits is what some
     * cases test. The save must succeed (200) unless `expect.status` says otherwise.
     */
    reconfigure: z.record(z.string(), z.unknown()).optional(),
    /**
     * Messenger: the case tenant (alias: "main", or a key of the case's `tenants`) whose page the
     * contact writes to — the turn must be claimed, logged and answered by this tenant alone.
     */
    tenant: z.string().min(1).default('main'),
    /**
     * Messenger: the page the event's entry names, when not the turn tenant's own: another case
     * tenant's alias (its page), or "unowned" (a page no tenant lists). Expect `ignored` with it.
     */
    page: z.string().min(1).optional(),
    /** Messenger: the tenant's own callback URL (default), or the Meta app's one URL (needs the case's `messengerApp`). */
    via: z.enum(['tenant', 'app']).default('tenant'),
    /** Contact alias within the case (each alias is a fresh sandbox subscriber). Default "main". */
    contact: z.string().default('main'),
    firstName: z.string().default('Ada'),
    customFields: z.record(z.string(), z.unknown()).optional(),
    /** contact.last_interaction, relative to the run ("-2h"); absolute only with the case's `absoluteTimes`. */
    lastInteraction: z.string().optional(),
    /** message_key sent with the delivery. Default: unique per turn. false: none (the Worker derives one). */
    messageKey: z.union([z.string(), z.literal(false)]).optional(),
    /** wrapped: {contact, text, message_key}; bare: the Full Contact Data object with last_input_text. */
    body: z.enum(['wrapped', 'bare']).default('wrapped'),
    /** How the same delivery (message, press, decision) is sent: once, repeated one after another, or concurrently. */
    deliveries: z
      .object({
        count: z.number().int().min(1).max(50),
        mode: z.enum(['sequential', 'concurrent']).default('sequential'),
        gapMs: z.number().int().min(0).max(10_000).default(0),
      })
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
  .strict()
  .superRefine((t, ctx) => {
    const forms = TurnForms.filter((f) => t[f] !== undefined);
    if (forms.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: forms.length
          ? `give one of ${TurnForms.join(', ')}, not ${forms.join(' and ')}`
          : `a turn needs one of ${TurnForms.join(', ')}`,
      });
      return;
    }
    const misplaced = (fields: (keyof typeof t)[], why: string) => {
      for (const f of fields) if (t[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: why });
    };
    if (forms[0] !== 'press') misplaced(['from', 'tamper'], 'only for a button press (press)');
    if (forms[0] !== 'text')
      misplaced(
        ['messageKey', 'lastInteraction', 'customFields'],
        'only for a text turn: a button press sends the payload it was given',
      );
    if (forms[0] !== 'text' && t.body !== 'wrapped')
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'only for a text turn' });
    if (forms[0] !== 'text') misplaced(['page'], 'only for a text turn (the page the message is written to)');
    if (forms[0] !== 'text' && forms[0] !== 'press' && t.model.length)
      ctx.addIssue({ code: 'custom', path: ['model'], message: 'a tenant decision makes no model call' });
  });
export type CaseTurn = z.infer<typeof TurnSchema>;

export const CaseTenantSchema = z
  .object({
    /** Deep-merged over the demo tenant (dev/demo-tenant.ts): objects merge, arrays and scalars replace, null removes. */
    overrides: z.record(z.string(), z.unknown()).default({}),
    /**
     * The tenant's notification channel (`notifications.approvals`) is the eval's receiver, in this
     * format; a turn's `notifications` expectation reads what it received.
     */
    notify: z.enum(['standard', 'slack']).optional(),
  })
  .strict();

export const CaseSchema = z
  .object({
    /** Default: the file name without extension. */
    name: z.string().min(1).optional(),
    description: z.string().default(''),
    tags: z.array(z.string()).default([]),
    tenant: CaseTenantSchema.default({ overrides: {} }),
    /**
     * More tenants of the case, by alias (a turn names one with `tenant`, an entry's page with
     * `page`): each its own demo tenant plus overrides, its own page, its own secrets.
     */
    tenants: z
      .record(
        z.string().regex(/^[a-z][a-z0-9-]{0,19}$/, 'a tenant alias is a-z, 0-9, - (at most 20)'),
        CaseTenantSchema,
      )
      .default({}),
    /**
     * Messenger: every tenant of the case is on one Meta app (the same `messenger.appId` and app
     * secret), so a turn can reach the app's one callback URL (`via: "app"`).
     */
    messengerApp: z.boolean().default(false),
    /** Needs a scripted model (errors, slowness): not run with --live. */
    scriptedOnly: z.boolean().default(false),
    /** Also run the naive two-step variant (default: automatically for staging-only cases). */
    baseline: z.boolean().optional(),
    /** The case means the absolute times it gives (default: only relative times such as "-2h" are accepted). */
    absoluteTimes: z.boolean().default(false),
    /**
     * Which webhook the turns reach: ManyChat's (default) or the Messenger Platform's (a signed
     * `X-Hub-Signature-256` event; `messageKey` is the `mid`, `lastInteraction` the message's
     * timestamp; the reply is read from the Send API sandbox once the outbox has sent it).
     * `instagram`, `whatsapp`, `telegram`: ManyChat's webhook for a contact on that ManyChat
     * channel (`manychat` is Facebook): the body is the walkthrough's template, Full Contact Data
     * with the channel's own fields (Telegram: the template's `"channel"`), every answer and
     * sendContent checked against the sandbox's rules for that channel.
     */
    channel: z.enum(['manychat', 'messenger', 'instagram', 'whatsapp', 'telegram']).default('manychat'),
    turns: z.array(TurnSchema).min(1),
  })
  .strict()
  .superRefine((c, ctx) => {
    if ('main' in c.tenants)
      ctx.addIssue({ code: 'custom', path: ['tenants', 'main'], message: '"main" is the case tenant (`tenant`)' });
    const aliases = new Set(['main', ...Object.keys(c.tenants)]);
    c.turns.forEach((t, i) => {
      if (c.channel !== 'messenger' && (t.tenant !== 'main' || t.page !== undefined || t.via !== 'tenant'))
        ctx.addIssue({
          code: 'custom',
          path: ['turns', i],
          message: 'tenant, page and via are for Messenger cases (events bound to pages)',
        });
      if (!aliases.has(t.tenant))
        ctx.addIssue({ code: 'custom', path: ['turns', i, 'tenant'], message: `no case tenant "${t.tenant}"` });
      if (t.page !== undefined && t.page !== 'unowned' && !aliases.has(t.page))
        ctx.addIssue({
          code: 'custom',
          path: ['turns', i, 'page'],
          message: `"unowned" or a case tenant alias, not "${t.page}"`,
        });
      if (t.via === 'app' && !c.messengerApp)
        ctx.addIssue({
          code: 'custom',
          path: ['turns', i, 'via'],
          message: 'via "app" needs the case\'s messengerApp',
        });
    });
    if (c.channel !== 'messenger' && Object.keys(c.tenants).length)
      ctx.addIssue({ code: 'custom', path: ['tenants'], message: 'more tenants are for Messenger cases' });
    if (c.channel !== 'messenger' && c.messengerApp)
      ctx.addIssue({ code: 'custom', path: ['messengerApp'], message: 'only for a Messenger case' });
    c.turns.forEach((t, i) => {
      if (c.channel !== 'messenger' && turnForm(t) === 'release')
        ctx.addIssue({
          code: 'custom',
          path: ['turns', i],
          message: 'a release turn is for Messenger cases (the thread is taken back from the inbox)',
        });
    });
    if (c.channel === 'messenger') {
      c.turns.forEach((t, i) => {
        if (turnForm(t) !== 'text' && turnForm(t) !== 'release' && turnForm(t) !== 'reconfigure')
          ctx.addIssue({
            code: 'custom',
            path: ['turns', i],
            message:
              'a Messenger case has text, release and reconfigure turns only (presses and decisions run through ManyChat cases)',
          });
        if (t.body !== 'wrapped' || t.customFields)
          ctx.addIssue({
            code: 'custom',
            path: ['turns', i],
            message: 'body and customFields are ManyChat request-template fields; a Messenger event has neither',
          });
      });
    }
    if (c.channel === 'instagram' || c.channel === 'whatsapp' || c.channel === 'telegram') {
      c.turns.forEach((t, i) => {
        if (t.body !== 'wrapped')
          ctx.addIssue({
            code: 'custom',
            path: ['turns', i, 'body'],
            message: `a ${c.channel} case sends the walkthrough's template (wrapped)`,
          });
      });
    }
    c.turns.forEach((t, i) => {
      const problem = t.lastInteraction === undefined ? null : caseTimeProblem(t.lastInteraction, c.absoluteTimes);
      if (problem) ctx.addIssue({ code: 'custom', path: ['turns', i, 'lastInteraction'], message: problem });
    });
  });
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
  if (!parsed.success)
    throw new CaseFormatError(
      file,
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
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

/** Which form a (parsed, so valid) turn has. */
export function turnForm(turn: Pick<CaseTurn, TurnForm>): TurnForm {
  return TurnForms.find((f) => turn[f] !== undefined) ?? 'text';
}

/** A short label of what the turn does, for reports. */
export function turnLabel(turn: CaseTurn): string {
  const form = turnForm(turn);
  if (form === 'text') return turn.text!;
  if (form === 'press')
    return `[press ${JSON.stringify(turn.press)}${turn.from ? ` from turn ${turn.from}` : ''}${turn.tamper ? `, tampered ${turn.tamper}` : ''}]`;
  if (form === 'release') return '[release the handoff]';
  if (form === 'reconfigure') return `[the tenant changes ${Object.keys(turn.reconfigure!).join(', ')}]`;
  const target = turn[form];
  return `[${form} ${target === true ? 'the first pending approval' : JSON.stringify(target)}]`;
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
