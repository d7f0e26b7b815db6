import { z } from 'zod';

/** A tenant's standing, kept beside its config: an operator may suspend it (its outbox still drains). */
export const TenantMetaSchema = z.object({
  status: z.enum(['active', 'suspended']),
  createdAt: z.string().optional(),
  suspendedAt: z.string().optional(),
});
export type TenantMeta = z.infer<typeof TenantMetaSchema>;
