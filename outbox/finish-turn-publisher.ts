import { Client } from '@upstash/qstash';
import { FINISH_TURN_PATH, type FinishTurnJob } from '../core/finish-turn-job.js';
import { tenantLabel } from './publisher.js';

export interface TurnJobPublisher {
  publishFinishTurn(job: FinishTurnJob, delaySeconds: number): Promise<void>;
}

/** Publishes a turn's delayed "finish turn" job (dedup id per tenant and turn). */
export function qstashTurnJobs(config: { qstashUrl: string; qstashToken: string; publicUrl: string }): TurnJobPublisher {
  const client = new Client({ baseUrl: config.qstashUrl, token: config.qstashToken });
  return {
    async publishFinishTurn(job, delaySeconds) {
      await client.publishJSON({
        url: `${config.publicUrl.replace(/\/$/, '')}${FINISH_TURN_PATH}`,
        body: job,
        deduplicationId: `finish-${job.inbound.tenantId}-${job.turnId}`,
        label: tenantLabel(job.inbound.tenantId),
        delay: delaySeconds,
        retries: 3,
      });
    },
  };
}
