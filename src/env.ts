import { z } from 'zod';
import type { SigningSecrets } from '../core/security/signing-keys.js';
import { weakKeyRingProblems, weakSecretProblems } from './env-strength.js';

/**
 * The Worker's environment, validated once per isolate. A missing or malformed variable fails
 * the request with a message that names it (never its value: some of these are secrets).
 */
const httpUrl = z.url({ protocol: /^https?$/ });

export const EnvSchema = z
  .object({
    APP_VERSION: z.string().min(1).default('dev'),
    /** The public base URL of this Worker; QStash delivers outbox entries to it. */
    PUBLIC_URL: httpUrl,
    UPSTASH_REDIS_REST_URL: httpUrl,
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1),
    QSTASH_URL: httpUrl,
    QSTASH_TOKEN: z.string().min(1),
    QSTASH_CURRENT_SIGNING_KEY: z.string().min(1),
    QSTASH_NEXT_SIGNING_KEY: z.string().min(1),
    MANYCHAT_API_URL: httpUrl.default('https://api.manychat.com'),
    MESSENGER_GRAPH_URL: httpUrl.default('https://graph.facebook.com/v23.0'),
    /** Empty or absent: the offline rule model answers. */
    OPENAI_API_KEY: z.string().optional(),
    OPENAI_BASE_URL: httpUrl.optional(),
    /** `chat` for OpenAI-compatible servers that only speak Chat Completions. */
    OPENAI_API_MODE: z.enum(['responses', 'chat']).default('responses'),
    /** Signs pinned terms, buttons and dashboard cookies (a key per purpose is derived from it). */
    SESSION_SECRET: z.string().min(16),
    /**
     * The SESSION_SECRET before a rotation: what it signed still verifies (pending confirmations,
     * approvals, open sessions) and approval notifications carry a second signature under it.
     * Remove once those have expired (8 hours covers them all).
     */
    SESSION_SECRET_PREVIOUS: z.string().min(16).optional(),
    /**
     * Tenant secrets at rest: `<key id>:<base64 32-byte key>`, comma-separated, the current key
     * first (an older one stays until `npm run tenant -- reencrypt` has sealed everything anew).
     */
    SECRETS_ENCRYPTION_KEYS: z.string().min(1),
    /** Key of the keyed hashes webhook and admin secrets are stored as (at least 32 characters). */
    SECRETS_HASH_KEY: z.string().min(32),
    /** The operator API's bearer secret (at least 32 characters). Absent: the operator API is closed. */
    OPERATOR_SECRET: z.string().min(32).optional(),
    /**
     * `local` only for the local stack and tests (dev/stack.ts sets it). Anything else is a deployed
     * Worker: weak secrets are refused and contacts are not answered by the offline rule model.
     */
    ENVIRONMENT: z.enum(['production', 'local']).default('production'),
    /** `true`: a deployed Worker without OPENAI_API_KEY answers contacts with the offline rule model (health says degraded). */
    ALLOW_OFFLINE_MODEL: z.enum(['true', 'false']).default('false'),
  })
  .superRefine((env, ctx) => {
    if (env.ENVIRONMENT === 'local') return;
    const judged: [string, string[]][] = [
      ['SESSION_SECRET', weakSecretProblems(env.SESSION_SECRET)],
      ['SESSION_SECRET_PREVIOUS', weakSecretProblems(env.SESSION_SECRET_PREVIOUS)],
      ['SECRETS_HASH_KEY', weakSecretProblems(env.SECRETS_HASH_KEY)],
      ['OPERATOR_SECRET', weakSecretProblems(env.OPERATOR_SECRET)],
      ['SECRETS_ENCRYPTION_KEYS', weakKeyRingProblems(env.SECRETS_ENCRYPTION_KEYS)],
    ];
    for (const [name, messages] of judged)
      for (const message of messages) ctx.addIssue({ code: 'custom', message, path: [name] });
  });

/** A Worker not running in the local stack or tests. */
export function isDeployed(env: Pick<AppEnv, 'ENVIRONMENT'>): boolean {
  return env.ENVIRONMENT !== 'local';
}

export type AppEnv = z.infer<typeof EnvSchema>;

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid environment: ${problems.join('; ')}`);
    this.name = 'EnvError';
  }
}

const cache = new WeakMap<object, AppEnv>();

/** Parses the raw bindings; throws EnvError naming every bad variable. */
export function parseEnv(raw: Record<string, unknown>): AppEnv {
  const hit = cache.get(raw);
  if (hit) return hit;
  // Treat empty strings as absent so `.dev.vars` lines like `OPENAI_API_KEY=` mean "not set".
  const cleaned = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  cache.set(raw, parsed.data);
  return parsed.data;
}

/** SESSION_SECRET with, during a rotation, the one before it (verifies, never signs). */
export function sessionSecrets(env: Pick<AppEnv, 'SESSION_SECRET' | 'SESSION_SECRET_PREVIOUS'>): SigningSecrets {
  return { current: env.SESSION_SECRET, previous: env.SESSION_SECRET_PREVIOUS };
}
