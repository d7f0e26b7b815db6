import { z } from 'zod';

/**
 * Per-tenant secrets, stored apart from the config so the config can be shown and edited
 * without exposing them. The webhook secret is kept only as a SHA-256 digest.
 */
export const TenantSecretsSchema = z.object({
  webhookSecretSha256: z.string().regex(/^[0-9a-f]{64}$/),
  /**
   * The tenant's admin credential for its JSON API (approvals, config, dead letters, handoff
   * release), apart from the webhook secret, which sits in every ManyChat request template.
   * Absent: the tenant API is closed for this tenant.
   */
  adminSecretSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  manychatApiKey: z.string().min(1),
  messengerAppSecret: z.string().optional(),
  messengerPageAccessToken: z.string().optional(),
  messengerVerifyToken: z.string().optional(),
});
export type TenantSecrets = z.infer<typeof TenantSecretsSchema>;
