/**
 * `npm run replay -- <tenant-id> [options]`: shadow replay (issue 16). Reads the tenant's recorded
 * turns from Redis (through the Upstash REST bridge of the local stack: `.local/stack.json`, or
 * --upstash-url / --upstash-token), re-runs each through the real loop, guardrails and decision
 * with a candidate config and the recorded model responses (src/replay/), and prints what would
 * change, turn by turn, then a summary by kind. Nothing is written, sent, tagged or published:
 * the replay has no commit stage and no channel client. Reads are tenant-scoped (the tenant's key
 * prefix; a record naming another tenant is dropped).
 *
 *   --config FILE        the candidate config (JSON; default: the tenant's stored config)
 *   --ids a,b            these turns only; else the newest --limit (default 100) that match
 *   --decision D --contact ID --since ISO --until ISO
 *   --json               the report as JSON
 *   --model-url URL      an OpenAI-compatible server (the local model sandbox, say) that answers
 *                        each call whose rebuilt request is not the recorded one (Chat Completions,
 *                        key: OPENAI_API_KEY or a placeholder); without it such a turn "needs a model"
 *   --export-case TURN --out FILE   write that recorded turn as an eval case (evals/case-format.ts)
 */
export type { ReplayReport } from '../src/replay/replay-report.js';
import { readFile, writeFile } from 'node:fs/promises';
import { tenantKeys } from '../core/storage/keys.js';
import { parseJson, RedisSession } from '../core/storage/redis-session.js';
import { parseTenantConfig, type TenantConfig } from '../core/tenant/tenant-config.js';
import type { TurnRecord } from '../core/turn-record.js';
import { defaultGuardrails } from '../guardrails/default-guardrails.js';
import { createOpenAI } from '@ai-sdk/openai';
import { loadTurnRecords } from '../src/dashboard/data/turns.js';
import type { ReplayReport } from '../src/replay/replay-report.js';
import { runReplay } from '../src/replay/run-replay.js';
import { recordToCase } from './replay/export-case.js';
import { EXIT, parseCommandLine, readStackFacts, runAsScript, stackFactsFile, UsageError } from './cli/cli-args.js';

export { UsageError };

export const REPLAY_USAGE = `usage: npm run replay -- <tenant-id> [options]        what a candidate config would change, turn by turn (nothing is performed)
       npm run replay -- <tenant-id> --export-case <turn-id> --out case.json   a recorded turn as an eval case

  --config FILE          the candidate config (JSON; default: the tenant's stored config)
  --ids a,b              these turns only; else the newest --limit N (1–1000, default 100) that match
  --decision D           pass | veto | escalate | error
  --contact ID  --since ISO  --until ISO
  --model-url URL        an OpenAI-compatible server that answers each call whose request changed
                         (else such a turn "needs a model"); key: $OPENAI_API_KEY
  --json                 the report as JSON
  --upstash-url URL --upstash-token T   the Redis to read (default: the local stack's, from
                         $STACK_STATE_DIR/stack.json or .local/stack.json)
exit codes: 0 done · 1 Redis or the replay failed (the reason is printed) · 2 a usage error`;

async function connect(values: {
  'upstash-url'?: string | undefined;
  'upstash-token'?: string | undefined;
}): Promise<RedisSession> {
  const facts = await readStackFacts<{ upstash: { url: string; token: string } }>();
  const url = values['upstash-url'] ?? facts.upstash?.url;
  const token = values['upstash-token'] ?? facts.upstash?.token;
  if (!url || !token)
    throw new UsageError(
      `no Redis to read: start the local stack (npm start; looked for ${stackFactsFile()}) or pass --upstash-url and --upstash-token`,
    );
  return RedisSession.connect(url, token);
}

async function storedConfig(session: RedisSession, tenantId: string): Promise<TenantConfig> {
  const raw = await session.one((r) => r.get(tenantKeys(tenantId).config));
  if (raw == null) throw new Error(`tenant ${tenantId} not found`);
  const parsed = parseTenantConfig(parseJson(raw), 'load');
  if (!parsed.ok) throw new Error(`the stored config of ${tenantId} does not validate: ${parsed.problems.join('; ')}`);
  return parsed.config;
}

async function candidateConfig(file: string, tenantId: string): Promise<TenantConfig> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  if (raw.tenantId !== undefined && raw.tenantId !== tenantId)
    throw new UsageError(`${file} is the config of tenant ${String(raw.tenantId)}, not ${tenantId}`);
  const parsed = parseTenantConfig({ ...raw, tenantId });
  if (!parsed.ok) throw new UsageError(`${file}: ${parsed.problems.join('; ')}`);
  return parsed.config;
}

function reportLines(report: ReplayReport): string[] {
  const lines: string[] = [];
  for (const t of report.turns) {
    const time = `${t.latency.recordedMs} → ${t.latency.replayedMs} ms, model ${t.latency.recordedModelMs} → ${t.latency.replayedModelMs} ms, answered by ${t.modelSource}`;
    if (t.status === 'needs-model') lines.push(`${t.turnId}: needs a model (${t.needsModel ?? 'the request changed'})`);
    else if (!t.changes.length) lines.push(`${t.turnId}: unchanged (${t.after.decision}; ${time})`);
    else lines.push(`${t.turnId}: ${t.changes.join(', ')} (${time})`);
    const { before: b, after: a } = t;
    if (t.changes.includes('decision') || t.changes.includes('deciding-guardrail'))
      lines.push(
        `  decision: ${b.decision}${b.decidingGuardrail ? ` (${b.decidingGuardrail})` : ''} → ${a.decision}${a.decidingGuardrail ? ` (${a.decidingGuardrail})` : ''}: ${a.reason}`,
      );
    if (t.changes.includes('reply')) lines.push(`  reply: ${JSON.stringify(b.reply)} → ${JSON.stringify(a.reply)}`);
    if (t.changes.includes('staged')) lines.push(`  staged: ${JSON.stringify(b.staged)} → ${JSON.stringify(a.staged)}`);
    if (t.changes.includes('asks')) lines.push(`  asks: ${JSON.stringify(b.asks)} → ${JSON.stringify(a.asks)}`);
    if (t.changes.includes('model-calls')) lines.push(`  model calls: ${b.modelCalls} → ${a.modelCalls}`);
    if (t.toolList.changed)
      lines.push(
        `  tool list: ${(t.toolList.recordedOrder ?? []).join(',')} → ${t.toolList.order.join(',')} (${t.toolList.bytes?.length ?? 0} bytes)`,
      );
  }
  const s = report.summary;
  lines.push(`replayed ${s.replayed} turns of ${report.tenantId}: ${s.changed} changed, ${s.needsModel} need a model`);
  for (const [kind, n] of Object.entries(s.byKind)) lines.push(`  ${kind}: ${n}`);
  for (const [move, n] of Object.entries(s.decisions)) lines.push(`  decision ${move}: ${n}`);
  lines.push(
    `  model calls: ${s.modelCalls.recorded} recorded → ${s.modelCalls.replayed} replayed (${s.answeredFromRecording} answered from the recording, ${s.answeredByModel} by the model)`,
  );
  lines.push(
    `  turn time p50/p95: recorded ${s.latency.recorded.p50}/${s.latency.recorded.p95} ms → replayed ${s.latency.replayed.p50}/${s.latency.replayed.p95} ms`,
  );
  if (s.toolListChanged) lines.push(`  tool list changed: ${s.toolListChanged}`);
  return lines;
}

export async function runReplayCli(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string' },
    ids: { type: 'string' },
    limit: { type: 'string' },
    decision: { type: 'string' },
    contact: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    json: { type: 'boolean' },
    'model-url': { type: 'string' },
    'export-case': { type: 'string' },
    out: { type: 'string' },
    'upstash-url': { type: 'string' },
    'upstash-token': { type: 'string' },
  });
  if (values.help) {
    print(REPLAY_USAGE);
    return EXIT.ok;
  }
  const tenantId = positionals[0];
  if (!tenantId || positionals.length > 1) throw new UsageError('give exactly one tenant id');
  try {
    tenantKeys(tenantId); // validates the id before any read
  } catch {
    throw new UsageError(`"${tenantId}" is not a tenant id (1–63 lower-case letters, digits, hyphens)`);
  }
  const limit = values.limit !== undefined ? Number(values.limit) : 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError('--limit is a whole number from 1 to 1000');
  if (values.decision && !['pass', 'veto', 'escalate', 'error'].includes(values.decision))
    throw new UsageError('--decision is pass, veto, escalate or error');
  const session = await connect(values);
  const candidate = values.config
    ? await candidateConfig(values.config, tenantId)
    : await storedConfig(session, tenantId);

  if (values['export-case'] !== undefined) {
    if (!values.out) throw new UsageError('--export-case needs --out FILE');
    const [record] = await loadTurnRecords(session, tenantId, [values['export-case']]);
    if (!record) throw new Error(`turn ${values['export-case']} of ${tenantId} not found`);
    await writeFile(values.out, `${JSON.stringify(recordToCase(record, candidate), null, 2)}\n`);
    print(`wrote ${values.out}`);
    return 0;
  }

  const filter = {
    ids: values.ids?.split(',').filter(Boolean),
    limit,
    decision: values.decision,
    contact: values.contact,
    since: values.since,
    until: values.until,
  };
  const model = values['model-url']
    ? createOpenAI({ apiKey: process.env.OPENAI_API_KEY ?? 'sk-replay-local', baseURL: values['model-url'] }).chat(
        candidate.modelId,
      )
    : undefined;
  const run = await runReplay(
    { session, guardrails: defaultGuardrails, limited: false, ...(model ? { model } : {}) },
    tenantId,
    filter,
    candidate,
  );
  if (!run.ok) throw new Error(run.refused.message);
  const report = run.report;
  if (values.json) print(JSON.stringify(report, null, 2));
  else for (const line of reportLines(report)) print(line);
  return 0;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  runAsScript(runReplayCli, () => REPLAY_USAGE);
}
