import type { LanguageModel } from 'ai';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import type { FinishTurnJob } from '../../core/finish-turn-job.js';
import type { TurnJobPublisher } from '../../outbox/finish-turn-publisher.js';
import { createApp } from '../../src/app.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { session, workerEnv } from '../support/workers-env.js';

export interface AppUnderTest {
  post(tenantId: string, secret: string | null, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Any request to the app (e.g. a signed QStash job). */
  fetch(request: Request): Promise<Response>;
  /** Finish-turn jobs the app published (instead of sending them to QStash). */
  finishJobs: { job: FinishTurnJob; delaySeconds: number }[];
  /** Waits for work handed to waitUntil (deferred turns). */
  settle(): Promise<void>;
}

/** The real Worker app with the model (and optionally the guardrails) replaced. */
export function appWith(model: LanguageModel, guardrails: readonly Guardrail[] = defaultGuardrails): AppUnderTest {
  const finishJobs: AppUnderTest['finishJobs'] = [];
  const turnJobs: TurnJobPublisher = {
    publishFinishTurn: async (job, delaySeconds) => void finishJobs.push({ job, delaySeconds }),
  };
  const app = createApp((s) => ({
    ...s,
    model: () => ({ model, modelId: 'scripted-model', offline: false }),
    guardrails,
    turnJobs: () => turnJobs,
  }));
  const contexts: ExecutionContext[] = [];
  const fetchWithCtx = async (request: Request) => {
    const ctx = createExecutionContext();
    contexts.push(ctx);
    return app.fetch(request, workerEnv, ctx);
  };
  return {
    fetch: fetchWithCtx,
    post: (tenantId, secret, body, headers = {}) =>
      fetchWithCtx(
        new Request(`http://worker.test/v1/manychat/${tenantId}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(secret ? { 'x-staged-agent-secret': secret } : {}),
            ...headers,
          },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    finishJobs,
    settle: async () => {
      await Promise.all(contexts.map((ctx) => waitOnExecutionContext(ctx)));
    },
  };
}

export async function turnRecord(tenantId: string, turnId: string): Promise<TurnRecord> {
  const raw = await session().one((r) => r.get(tenantKeys(tenantId).turn(turnId)));
  return parseJson(raw) as TurnRecord;
}

export async function outboxEntry(tenantId: string, turnId: string): Promise<OutboxEntry | null> {
  const raw = await session().one((r) => r.get(tenantKeys(tenantId).outbox(turnId)));
  return parseJson(raw) as OutboxEntry | null;
}
