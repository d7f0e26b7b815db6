import { qstashClient } from './qstash-client.js';
import { FINISH_TURN_PATH, type FinishTurnJob } from '../core/finish-turn-job.js';
import { tenantLabel } from './publisher.js';

export interface TurnJobPublisher {
  /** `attempt`: a later publish on purpose (the sweeper), so QStash's deduplication window cannot swallow it. */
  publishFinishTurn(job: FinishTurnJob, delaySeconds: number, opts?: { attempt?: string }): Promise<void>;
}

/** Publishes a turn's delayed "finish turn" job (dedup id per tenant and turn). */
export function qstashTurnJobs(config: {
  qstashUrl: string;
  qstashToken: string;
  publicUrl: string;
}): TurnJobPublisher {
  const client = qstashClient(config);
  return {
    async publishFinishTurn(job, delaySeconds, opts) {
      await client.publishJSON({
        url: `${config.publicUrl.replace(/\/$/, '')}${FINISH_TURN_PATH}`,
        body: job,
        deduplicationId: `finish-${job.inbound.tenantId}-${job.turnId}${opts?.attempt ? `-${opts.attempt}` : ''}`,
        label: tenantLabel(job.inbound.tenantId),
        ...(delaySeconds ? { delay: delaySeconds } : {}),
        retries: 3,
      });
    },
  };
}
