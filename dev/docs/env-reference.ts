/**
 * What a person deploying the Worker needs to know about each variable of the env schema
 * (src/env.ts): secret or plain var, and where its value comes from. `npm run docs` renders it,
 * with required/default read from the schema itself, into the README's deploy checklist;
 * test/node/docs.test.ts fails when a schema variable has no entry here (or an entry names no
 * variable), or when wrangler.toml names a variable the schema does not know.
 */
export interface EnvVariableDoc {
  /** `secret`: `wrangler secret put/bulk`; `var`: `[vars]` in wrangler.toml (not secret). */
  kind: 'secret' | 'var';
  /** Overrides the schema's required/optional when the truth is conditional. */
  required?: string;
  /** What it is and where to find or how to make its value. */
  where: string;
}

export const ENV_VARIABLE_DOCS: Record<string, EnvVariableDoc> = {
  APP_VERSION: { kind: 'var', where: 'The version `/v1/health` reports; set in `wrangler.toml`.' },
  PUBLIC_URL: {
    kind: 'secret',
    where:
      "The Worker's own public base URL, e.g. `https://staged-agent.<your-subdomain>.workers.dev` — known only after the first `wrangler deploy` prints it; QStash delivers to `${PUBLIC_URL}/v1/outbox/deliver` and signed deliveries are checked against it. See the order of operations below.",
  },
  UPSTASH_REDIS_REST_URL: {
    kind: 'secret',
    where:
      'Upstash console → Redis → your database → **REST API** section: `UPSTASH_REDIS_REST_URL` (`https://….upstash.io`).',
  },
  UPSTASH_REDIS_REST_TOKEN: {
    kind: 'secret',
    where: 'Same section: `UPSTASH_REDIS_REST_TOKEN` (the read-write token, not the read-only one).',
  },
  QSTASH_URL: {
    kind: 'secret',
    where:
      "Upstash console → QStash → the environment-variable snippet next to the token: `QSTASH_URL` (`https://qstash.upstash.io`, or your region's URL).",
  },
  QSTASH_TOKEN: { kind: 'secret', where: 'Upstash console → QStash: `QSTASH_TOKEN`.' },
  QSTASH_CURRENT_SIGNING_KEY: {
    kind: 'secret',
    where:
      'Upstash console → QStash → **Signing Keys**: the current key (`sig_…`). Verifies every delivery to the Worker.',
  },
  QSTASH_NEXT_SIGNING_KEY: {
    kind: 'secret',
    where: 'Same place: the next key (accepted too, so a key roll in the console does not break deliveries).',
  },
  MANYCHAT_API_URL: {
    kind: 'var',
    where:
      "ManyChat's API; keep the default. Each tenant's API key (ManyChat → Settings → API) is stored with the tenant (`npm run tenant -- create … --manychat-key`), not here.",
  },
  MESSENGER_GRAPH_URL: { kind: 'var', where: 'Facebook Graph API base; keep the default.' },
  OPENAI_API_KEY: {
    kind: 'secret',
    required: 'yes, deployed (unless `ALLOW_OFFLINE_MODEL=true`)',
    where:
      "platform.openai.com → API keys (or your OpenAI-compatible provider's key). Without it a deployed Worker answers contacts 503 and `/v1/health` says degraded.",
  },
  OPENAI_BASE_URL: {
    kind: 'secret',
    where: 'Only for an OpenAI-compatible server other than OpenAI (e.g. `https://…/v1`).',
  },
  OPENAI_API_MODE: { kind: 'var', where: '`chat` for servers that speak only Chat Completions; else `responses`.' },
  SESSION_SECRET: {
    kind: 'secret',
    where:
      'Generate: `openssl rand -base64 32`. A key per purpose is derived from it (HKDF) for button payloads, pinned confirmation/approval terms and the dashboard session cookies; approval notifications are signed with a per-tenant secret derived from it. Deployed: 32+ random characters; placeholders refused. To rotate, see `SESSION_SECRET_PREVIOUS`.',
  },
  SESSION_SECRET_PREVIOUS: {
    kind: 'secret',
    where:
      'Only while rotating `SESSION_SECRET`: set it to the old value and `SESSION_SECRET` to the new one. What the old one signed keeps verifying (pending confirmations and approvals, open dashboard sessions) and notifications carry a second signature under the old tenant secret; nothing new is signed with it. Remove it after 8 hours (the longest of those lifetimes). Rotated without it, every pending row is expired when next touched and its contact told nothing was changed.',
  },
  SECRETS_ENCRYPTION_KEYS: {
    kind: 'secret',
    where:
      'Generate: `echo "k1:$(openssl rand -base64 32)"`. Seals tenant secrets at rest; to rotate, put a new key first, run `npm run tenant -- reencrypt`, then drop the old one.',
  },
  SECRETS_HASH_KEY: {
    kind: 'secret',
    where:
      "Generate: `openssl rand -base64 32`. Keys the hashes webhook and admin secrets are stored as; changing it invalidates every tenant's secrets.",
  },
  OPERATOR_SECRET: {
    kind: 'secret',
    where:
      'Generate: `openssl rand -base64 32`. Bearer secret of the operator API (`npm run tenant -- … --url … --operator-secret …`); absent: the operator API is closed.',
  },
  ENVIRONMENT: {
    kind: 'var',
    where:
      '`production` in `wrangler.toml`: weak secrets are refused and there is no silent offline model. Only the local stack sets `local`.',
  },
  ALLOW_OFFLINE_MODEL: {
    kind: 'var',
    where:
      '`true` lets a deployed Worker without `OPENAI_API_KEY` answer with the offline rule model (a demo; `/v1/health` stays degraded).',
  },
};
