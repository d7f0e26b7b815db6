import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';

/**
 * Storage with owners (issue 27): each tenant key of a stored structure is named only by the
 * module that owns it — which also parses its replies — and by the multi-structure atomic scripts
 * that take it in their key set (the commit, a contact's deletion). A static scan of the
 * production tree, so a new reader of, say, the ledger cannot appear beside the owner unnoticed:
 * it must read through the owner, or be added here on purpose (and a reviewer sees it).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PRODUCTION_DIRS = ['core', 'tools', 'guardrails', 'outbox', 'src'];

/** Scripts that write or delete several structures at once, atomically: they may name every key they touch. */
const COMMIT = 'outbox/commit.ts';
const DELETION = 'src/tenants/contact-deletion.ts';

/**
 * The claim store: one owner. The commit, a contact's deletion and the due-work index's reschedule
 * script take its keys through it (`queueClaimClosed`, `claimKeys`), so they name none of them.
 */
const CLAIM_OWNERS = ['core/storage/claims.ts'];
/**
 * The turn-record store: one owner. The commit queues the record through it (`queueTurnRecord`,
 * its guard from `turnRecordKeys`); a contact's deletion and the claim and contact-state stores take
 * the keys from `turnRecordKeys`.
 */
const TURN_OWNERS = ['core/storage/turn-records.ts'];
/**
 * The pinned-row store: one owner of a row's terms, status and correction mark, the pending-call
 * index, the approval queue and each contact's rows. The commit queues a row through it
 * (`queuePinnedRow`); the decision, supersede and correction scripts, a deletion and the due-work
 * index take the keys from `pinnedKeys`.
 */
const PINNED_OWNERS = ['core/storage/pinned-rows.ts'];
/** The files that may take keys from `pinnedKeys(...)`: the owner and the multi-structure scripts. */
export const PINNED_KEY_USERS = [
  ...PINNED_OWNERS,
  'core/storage/due-index.ts',
  'src/approvals/pinned-store.ts',
  'src/approvals/correct-approval.ts',
  DELETION,
];
/**
 * The outbox store: one owner of an entry, the pending set and an entry's ledger (and the lease
 * beside the entry). Everyone else reads and writes them through it; the multi-structure scripts
 * (the commit, a decided pinned row, an alert, the ledger's transition, a delivery's close, a
 * deletion, the due-work index) take the keys from `outboxKeys` or queue an entry with
 * `queueOutboxEntry`.
 */
const OUTBOX_OWNERS = ['core/storage/outbox-store.ts'];
/** The files that may take keys from `outboxKeys(...)`: the owner and the multi-structure scripts. */
export const OUTBOX_KEY_USERS = [
  ...OUTBOX_OWNERS,
  'core/storage/due-index.ts',
  'outbox/commit-notice.ts',
  'outbox/deliver-entry.ts',
  'outbox/ledger.ts',
  'outbox/sweeper.ts',
  'src/approvals/pinned-store.ts',
  DELETION,
];

/**
 * The reply-order store: one owner. The commit queues through it (`queueLeaveReplyOrder`); a
 * delivery's close and the claim store's release of an unfinished turn take the key from
 * `replyOrderKeys`.
 */
const REPLY_ORDER_OWNERS = ['core/storage/reply-order.ts'];
export const REPLY_ORDER_KEY_USERS = [...REPLY_ORDER_OWNERS, 'core/storage/claims.ts', 'outbox/deliver-entry.ts'];

/**
 * The dead-letter store: one owner. The ledger's transition script pushes and takes off letters
 * with the key from `deadLetterKeys`; a deletion drops a contact's through the owner.
 */
const DEAD_LETTER_OWNERS = ['core/storage/dead-letter-list.ts'];
export const DEAD_LETTER_KEY_USERS = [...DEAD_LETTER_OWNERS, 'outbox/ledger.ts'];

/**
 * An alert's once-per-item marker: one owner; the alert's commit and a delivery's close take it
 * from `alertMarkerKeys`.
 */
const ALERT_MARKER_OWNERS = ['core/storage/alert-markers.ts'];
export const ALERT_MARKER_KEY_USERS = [
  ...ALERT_MARKER_OWNERS,
  'outbox/deliver-entry.ts',
  'src/approvals/failure-alerts.ts',
];

/**
 * The tenant record (config, sealed secrets, status, revision): one owner, in core/ because the
 * claim script reads the revision beside the claim. The tenant store loads and parses the record;
 * the scripts that write several of its keys at once (a create, a save at a revision, a change
 * with its bump) and the claim script take them from `tenantRecordKeys`; a single read goes
 * through `readTenantRev` or `readStoredSecrets`.
 */
const TENANT_RECORD_OWNERS = ['core/storage/tenant-record.ts'];
export const TENANT_RECORD_KEY_USERS = [
  ...TENANT_RECORD_OWNERS,
  'core/storage/claims.ts',
  'src/tenants/tenant-store.ts',
  'src/tenants/provisioning.ts',
  'src/dashboard/setup/save-config.ts',
  'src/dashboard/setup/save-messenger-pages.ts',
];

/**
 * The rate-limit windows' prefix: one owner (the webhook's limits). The replay's and the dashboard
 * login's limiters, and a contact's deletion (which scans the contact's windows), take their
 * prefixes from `rateLimitKeys`.
 */
const RATE_LIMIT_OWNERS = ['guardrails/rate-limit.ts'];
export const RATE_LIMIT_KEY_USERS = [
  ...RATE_LIMIT_OWNERS,
  'src/replay/replay-limit.ts',
  'src/dashboard/auth/dashboard-keys.ts',
  DELETION,
];

/** The page a contact wrote to: one owner; a contact's deletion takes the key from `contactPageKeys`. */
const CONTACT_PAGE_OWNERS = ['src/tenants/page-tokens.ts'];
export const CONTACT_PAGE_KEY_USERS = [...CONTACT_PAGE_OWNERS, DELETION];

/** Accessor of `tenantKeys(...)` → the files that may name it. Every accessor has an entry (a test below checks). */
export const OWNERS: Record<string, readonly string[]> = {
  claim: CLAIM_OWNERS,
  // The due-work index's reschedule script reads the first open claim through `claimKeys`.
  openClaims: CLAIM_OWNERS,
  claimJob: CLAIM_OWNERS,
  turn: TURN_OWNERS,
  turnLog: TURN_OWNERS,
  contactTurns: TURN_OWNERS,
  pinnedTerms: PINNED_OWNERS,
  pinnedStatus: PINNED_OWNERS,
  pendingCall: PINNED_OWNERS,
  contactRows: PINNED_OWNERS,
  approvalQueue: PINNED_OWNERS,
  outbox: OUTBOX_OWNERS,
  outboxPending: OUTBOX_OWNERS,
  ledger: OUTBOX_OWNERS,
  deadLetters: DEAD_LETTER_OWNERS,
  // A contact's history and handoff state: one owner. The claim's script, the commit, a deletion and
  // the handoff inbox name them through it (`contactStateKeys`, `queueHistory`, `queueHandoff`).
  history: ['core/storage/contact-state.ts'],
  handoff: ['core/storage/contact-state.ts'],
  // The handoff inbox's index: one owner (the commit queues into it through the owner, a deletion
  // takes the key from `handoffIndexKeys`).
  handoffIndex: ['core/storage/handoffs.ts'],
  alertSent: ALERT_MARKER_OWNERS,
  // Health's hourly counts: one owner (the commit and the delivery count through it).
  metricsHour: ['core/storage/turn-metrics.ts'],
  replyOrder: REPLY_ORDER_OWNERS,
  config: TENANT_RECORD_OWNERS,
  secrets: TENANT_RECORD_OWNERS,
  meta: TENANT_RECORD_OWNERS,
  rev: TENANT_RECORD_OWNERS,
  // A tenant's audit log: one owner (an operator action goes on it through `pushTenantAuditEntry`).
  audit: ['src/tenants/audit-log.ts'],
  // A data-deletion request's status: one owner (Meta's callback and its status page go through it).
  deletionStatus: ['src/tenants/deletion-status.ts'],
  contactPage: CONTACT_PAGE_OWNERS,
  rateLimitPrefix: RATE_LIMIT_OWNERS,
  // The dashboard's users and sessions: one owner.
  dashboardPrefix: ['src/dashboard/auth/dashboard-keys.ts'],
};

async function productionFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The owned accessors one source text names: `<keys>.accessor` where `<keys>` is any value of `tenantKeys(...)`. */
export function accessorsNamed(source: string): Set<string> {
  const aliases = new Set(['keys', 'k']);
  for (const m of source.matchAll(/\b(?:const|let)\s+(\w+)\s*=\s*tenantKeys\(/g)) aliases.add(m[1]!);
  const named = new Set<string>();
  const accessors = Object.keys(OWNERS).join('|');
  // The argument may itself hold a call, one level deep: `tenantKeys(c.req.param('tenant')).turn(id)`.
  const pattern = new RegExp(
    `(?:\\b(?:${[...aliases].join('|')})|tenantKeys\\((?:[^()]|\\([^()]*\\))*\\))\\.(${accessors})\\b`,
    'g',
  );
  for (const m of source.matchAll(pattern)) named.add(m[1]!);
  return named;
}

describe('storage keys have owners', () => {
  it('the scan sees a key named through any alias of tenantKeys(...), and nothing else', () => {
    expect([...accessorsNamed('const keys = tenantKeys(id);\np.hgetall(keys.ledger(turnId));')]).toEqual(['ledger']);
    expect([...accessorsNamed('const t = tenantKeys(id);\nawait r.get(t.claim(d));')]).toEqual(['claim']);
    expect([...accessorsNamed('r.get(tenantKeys(tenantId).turn(turnId))')]).toEqual(['turn']);
    expect([...accessorsNamed("r.get(tenantKeys(c.req.param('tenant')).turn(turnId))")]).toEqual(['turn']);
    expect([...accessorsNamed('const h = claim.history; record.turn; ctx.turnId')]).toEqual([]);
  });

  it('every key builder of tenantKeys(...) has a declared owner', () => {
    expect(Object.keys(tenantKeys('acme')).sort()).toEqual(Object.keys(OWNERS).sort());
  });

  it('each owned key accessor is named only by its owner modules (and the atomic multi-structure scripts)', async () => {
    const strays: string[] = [];
    const seen = new Map<string, Set<string>>();
    for (const dir of PRODUCTION_DIRS) {
      for (const file of await productionFiles(dir)) {
        const source = await readFile(join(ROOT, file), 'utf8');
        if (!source.includes('tenantKeys')) continue;
        for (const accessor of accessorsNamed(source)) {
          seen.set(accessor, (seen.get(accessor) ?? new Set()).add(file));
          if (!OWNERS[accessor]!.includes(file))
            strays.push(
              `${file} names tenantKeys(...).${accessor}; read it through its owner (${OWNERS[accessor]![0]})`,
            );
        }
      }
    }
    expect(strays).toEqual([]);
    // The scan found the owners themselves: it is not vacuous.
    for (const accessor of ['outbox', 'outboxPending', 'ledger'])
      expect([...(seen.get(accessor) ?? [])]).toEqual(['core/storage/outbox-store.ts']);
    for (const accessor of ['pinnedTerms', 'pinnedStatus', 'pendingCall', 'approvalQueue', 'contactRows'])
      expect([...(seen.get(accessor) ?? [])]).toEqual(['core/storage/pinned-rows.ts']);
    expect([...(seen.get('replyOrder') ?? [])]).toEqual(['core/storage/reply-order.ts']);
    expect([...(seen.get('deadLetters') ?? [])]).toEqual(['core/storage/dead-letter-list.ts']);
    expect([...(seen.get('alertSent') ?? [])]).toEqual(['core/storage/alert-markers.ts']);
    expect([...(seen.get('handoffIndex') ?? [])]).toEqual(['core/storage/handoffs.ts']);
    for (const accessor of ['turn', 'turnLog', 'contactTurns'])
      expect([...(seen.get(accessor) ?? [])]).toEqual(['core/storage/turn-records.ts']);
    expect([...(seen.get('claim') ?? [])]).toEqual(['core/storage/claims.ts']);
    expect([...(seen.get('openClaims') ?? [])]).toEqual(['core/storage/claims.ts']);
    expect([...(seen.get('history') ?? [])]).toEqual(['core/storage/contact-state.ts']);
    // Every accessor is named by its owner, and by nobody else.
    for (const [accessor, owners] of Object.entries(OWNERS))
      expect([...(seen.get(accessor) ?? [])].sort(), accessor).toEqual([...owners].sort());
  });

  it.each([
    // A key built by hand (`${...}:outbox:…`, `:ledger:`, `:outbox-pending`, `:lease`) beside the owner.
    {
      keysOf: 'outboxKeys',
      owners: OUTBOX_OWNERS,
      users: OUTBOX_KEY_USERS,
      spelling: /[}:](outbox|ledger)[:-]|:lease\b/,
    },
    // `:pinned:`, `:pending-call:`, `:approvals`, `:contact-rows:`, `:corrected-by`.
    {
      keysOf: 'pinnedKeys',
      owners: PINNED_OWNERS,
      users: PINNED_KEY_USERS,
      spelling: /[}:](pinned|pending-call|contact-rows):|[}:]approvals\b|:corrected-by/,
    },
    {
      keysOf: 'replyOrderKeys',
      owners: REPLY_ORDER_OWNERS,
      users: REPLY_ORDER_KEY_USERS,
      spelling: /[}:]reply-order:/,
    },
    {
      keysOf: 'deadLetterKeys',
      owners: DEAD_LETTER_OWNERS,
      users: DEAD_LETTER_KEY_USERS,
      spelling: /[}:]dead-letters\b/,
    },
    {
      keysOf: 'alertMarkerKeys',
      owners: ALERT_MARKER_OWNERS,
      users: ALERT_MARKER_KEY_USERS,
      spelling: /[}:]alert:/,
    },
    {
      keysOf: 'handoffIndexKeys',
      owners: ['core/storage/handoffs.ts'],
      users: ['core/storage/handoffs.ts', DELETION],
      spelling: /[}:]handoffs\b/,
    },
    // `:config`, `:secrets`, `:meta`, `:rev` after a tenant's prefix.
    {
      keysOf: 'tenantRecordKeys',
      owners: TENANT_RECORD_OWNERS,
      users: TENANT_RECORD_KEY_USERS,
      spelling: /\}:(config|secrets|meta|rev)\b|:(config|secrets|meta|rev)\$/,
    },
    {
      keysOf: 'rateLimitKeys',
      owners: RATE_LIMIT_OWNERS,
      users: RATE_LIMIT_KEY_USERS,
      spelling: /[}:]rl[:`'"]/,
    },
    {
      keysOf: 'contactPageKeys',
      owners: CONTACT_PAGE_OWNERS,
      users: CONTACT_PAGE_KEY_USERS,
      spelling: /[}:]contact-page:/,
    },
  ])(
    'the keys of $keysOf reach only the multi-structure scripts, through it; no file spells them itself',
    async ({ keysOf, owners, users, spelling }) => {
      const found: string[] = [];
      const spelled: string[] = [];
      for (const dir of PRODUCTION_DIRS) {
        for (const file of await productionFiles(dir)) {
          const source = await readFile(join(ROOT, file), 'utf8');
          if (new RegExp(`\\b${keysOf}\\(`).test(source)) found.push(file);
          if (file !== 'core/storage/keys.ts' && !owners.includes(file) && spelling.test(source)) spelled.push(file);
        }
      }
      expect(found.sort()).toEqual([...users].sort());
      expect(spelled).toEqual([]);
    },
  );
});
