import type { LanguageModel } from 'ai';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { tenantKeys } from '../../core/storage/keys.js';
import { createApp } from '../../src/app.js';
import { createOfflineRuleModel, OFFLINE_RULE_MODEL_ID } from '../../src/models/offline-rule-model.js';
import type { TurnJobPublisher } from '../../outbox/finish-turn-publisher.js';
import { reply } from '../support/scripted-model.js';
import { session, workerEnv } from '../support/workers-env.js';
import { MockLanguageModelV4 } from 'ai/test';

/**
 * The real Worker app for the property tests, with counters on the two doors through which an
 * input becomes an action: a turn starting (the model chosen for it) and an outbox entry being
 * handed to QStash (the real publisher to the QStash stand-in, counted on the way). Finish-turn
 * jobs are recorded instead of published: a fuzz run makes hundreds of turns and those jobs would
 * only come back 50 s later to a Worker that is not listening.
 */
export interface FuzzApp {
  fetch(request: Request): Promise<Response>;
  /** Turns started (a model was chosen for a turn). */
  readonly turnsStarted: number;
  /** Outbox entries handed to QStash (committed turns, confirmed buttons). */
  readonly published: number;
  /** Waits for work handed to waitUntil. */
  settle(): Promise<void>;
}

/**
 * A model that, whatever it is asked, stages the brochure and replies: if an input that should
 * have been refused reached a turn, this turn would stage (and, if it passed, commit) an action.
 */
export function alwaysStagingModel(): LanguageModel {
  let n = 0;
  return new MockLanguageModelV4({
    provider: 'fuzz',
    modelId: 'always-stages',
    doGenerate: async () => {
      const id = n++;
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `c${id}a`,
            toolName: 'send_media',
            input: JSON.stringify({ flow: 'brochure' }),
          },
          {
            type: 'tool-call',
            toolCallId: `c${id}b`,
            toolName: 'reply',
            input: JSON.stringify(reply('Here is the brochure.')),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

/** `'offline'`: the offline rule model built from the tenant config of each turn (as `npm start` runs). */
export function fuzzApp(model: LanguageModel | 'offline'): FuzzApp {
  let turnsStarted = 0;
  let published = 0;
  const turnJobs: TurnJobPublisher = { publishFinishTurn: async () => {} };
  const app = createApp((s) => ({
    ...s,
    turnJobs: () => turnJobs,
    publisher: () => {
      const real = s.publisher();
      return { publish: async (message, opts) => void (published++, await real.publish(message, opts)) };
    },
    model: (config) => {
      turnsStarted++;
      return model === 'offline'
        ? { model: createOfflineRuleModel(config), modelId: OFFLINE_RULE_MODEL_ID, offline: true }
        : { model, modelId: 'fuzz-model', offline: false };
    },
  }));
  const contexts: ExecutionContext[] = [];
  return {
    fetch: async (request) => {
      const ctx = createExecutionContext();
      contexts.push(ctx);
      return app.fetch(request, workerEnv, ctx);
    },
    get turnsStarted() {
      return turnsStarted;
    },
    get published() {
      return published;
    },
    settle: async () => {
      await Promise.all(contexts.splice(0).map((ctx) => waitOnExecutionContext(ctx)));
    },
  };
}

/** What a tenant holds that an accepted input adds to: turns logged, outbox entries pending, open claims. */
export async function tenantFootprint(
  tenantId: string,
): Promise<{ turns: number; pending: number; openClaims: number }> {
  const keys = tenantKeys(tenantId);
  const [turns, pending, openClaims] = await session().pipeline((p) => {
    p.zcard(keys.turnLog);
    p.zcard(keys.outboxPending);
    p.zcard(keys.openClaims);
  });
  return { turns: Number(turns), pending: Number(pending), openClaims: Number(openClaims) };
}

export function webhookRequest(tenantId: string, body: string | Uint8Array, headers: Record<string, string>): Request {
  return new Request(`http://worker.test/v1/manychat/${tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}
