import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { Services } from '../http/app-context.js';
import type { TurnDeps } from './turn-context.js';
import type { TenantStatus } from './turn-engine.js';
import { sessionSecrets } from '../env.js';

/** The URL a tenant's ManyChat buttons post back to: its webhook. */
export function manyChatCallbackUrl(services: Services, tenantId: string): string {
  return `${services.env.PUBLIC_URL.replace(/\/$/, '')}/v1/manychat/${tenantId}`;
}

/**
 * What a turn needs, from the request's services: one place, whoever runs the turn. The tenant's
 * status comes with it, so the engine refuses a suspended tenant's committing turn whichever
 * entry point let it in (turn-engine.ts `refusalOf`).
 */
export function turnDeps(
  services: Services,
  session: RedisSession,
  config: TenantConfig,
  status: TenantStatus,
  background?: (work: Promise<unknown>) => void,
): TurnDeps {
  const model = services.model(config);
  return {
    session,
    model: model.model,
    modelId: model.modelId,
    guardrails: services.guardrails,
    publisher: services.publisher(),
    pinSecret: sessionSecrets(services.env),
    callbackUrl: manyChatCallbackUrl(services, config.tenantId),
    publicUrl: services.env.PUBLIC_URL,
    tenantStatus: status,
    ...(background ? { background } : {}),
  };
}
