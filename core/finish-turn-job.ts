import { z } from 'zod';
import { InboundMessageSchema } from './inbound-message.js';
import { KeyIdSchema } from './storage/keys.js';

/**
 * The guarantee behind a deferred turn: a delayed QStash job that runs the turn again from the
 * start if the isolate that deferred it died. Safe because nothing was performed before the
 * commit, and the commit of a deferred turn is claimed by turn id, so it happens once.
 */
export const FINISH_TURN_PATH = '/v1/turns/finish';

export const FinishTurnJobSchema = z.object({ turnId: KeyIdSchema, inbound: InboundMessageSchema });
export type FinishTurnJob = z.infer<typeof FinishTurnJobSchema>;
