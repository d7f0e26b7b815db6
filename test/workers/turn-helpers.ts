import type { LanguageModel } from 'ai';
import { createApp } from '../../src/app.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import type { TurnRecord } from '../../src/domain/turn-record.js';
import { tenantKeys } from '../../src/storage/keys.js';
import { parseJson } from '../../src/storage/redis-session.js';
import type { OutboxEntry } from '../../outbox/outbox-entry.js';
import { session, workerEnv } from '../support/workers-env.js';

export interface AppUnderTest {
  post(tenantId: string, secret: string | null, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** The real Worker app with the model (and optionally the guardrails) replaced. */
export function appWith(model: LanguageModel, guardrails: readonly Guardrail[] = defaultGuardrails): AppUnderTest {
  const app = createApp((s) => ({ ...s, model: () => ({ model, modelId: 'scripted-model', offline: false }), guardrails }));
  return {
    post: (tenantId, secret, body, headers = {}) =>
      Promise.resolve(
        app.fetch(
          new Request(`http://worker.test/v1/manychat/${tenantId}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(secret ? { 'x-staged-agent-secret': secret } : {}), ...headers },
            body: typeof body === 'string' ? body : JSON.stringify(body),
          }),
          workerEnv,
        ),
      ),
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
