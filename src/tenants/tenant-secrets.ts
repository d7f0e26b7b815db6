import { z } from 'zod';

/**
 * Per-tenant secrets, stored apart from the config so the config can be shown and edited
 * without exposing them. The webhook secret is kept only as a SHA-256 digest.
 */
export const TenantSecretsSchema = z.object({
  webhookSecretSha256: z.string().regex(/^[0-9a-f]{64}$/),
  manychatApiKey: z.string().min(1),
  messengerAppSecret: z.string().optional(),
  messengerPageAccessToken: z.string().optional(),
  messengerVerifyToken: z.string().optional(),
});
export type TenantSecrets = z.infer<typeof TenantSecretsSchema>;
