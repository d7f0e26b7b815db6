import type { CallbackClaim } from '../../approvals/callback-signature.js';
import type { AppVariables, LoadedTenant } from '../../http/app-context.js';
import type { ManyChatWebhook } from './inbound-schema.js';

export const WEBHOOK_SECRET_HEADER = 'x-staged-agent-secret';

/** How a ManyChat request proved it is the tenant's: the secret header, or a button we signed. */
export type ManyChatAuth = { via: 'secret' } | { via: 'callback'; claim: CallbackClaim };

export type ManyChatContext = {
  Bindings: Record<string, unknown>;
  /** `storageDown`: Redis did not answer; the tenant is what this isolate last read of it. */
  Variables: AppVariables & {
    tenant: LoadedTenant;
    webhook: ManyChatWebhook;
    auth: ManyChatAuth;
    storageDown: boolean;
    tenantRev: number | null;
    tenantFromCache: boolean;
  };
};
