import type { InboundMessage } from '../../core/inbound-message.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import { ConditionalWrites } from '../../core/storage/conditional-writes.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { queuePinnedRow } from '../../core/storage/pinned-rows.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { pinGatedActions } from '../../src/approvals/create-pinned.js';
import { inboundFor, PIN_SECRET, stageConfig } from './turn-stage.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { session, uniqueId } from './workers-env.js';

/**
 * Pending confirmation and approval rows for the approvals tests, created the way a passing turn
 * creates them: pinGatedActions signs the terms, and the commit's own row layout
 * (queuePinnedRow inside a conditional write) stores them.
 */
export function gatedAction(
  name: string,
  gate: 'confirm' | 'approval',
  args: Record<string, unknown> = { tag: name },
): StagedAction {
  return {
    id: `a_${name}`,
    tool: gate === 'approval' ? 'untag_contact' : 'tag_contact',
    kind: gate === 'approval' ? 'remove_tag' : 'add_tag',
    args,
    effect: gate === 'approval' ? 'destructive' : 'write',
    idempotent: true,
    gate,
    summary: `${gate === 'approval' ? 'remove' : 'add'} tag "${name}"`,
  };
}

export async function savePinned(terms: PinnedTerms[]): Promise<void> {
  if (!terms.length) return;
  const w = new ConditionalWrites(tenantKeys(terms[0]!.tenantId).turn(`turn_${uniqueId('guard')}`));
  for (const t of terms) queuePinnedRow(w, t);
  await session().one((r) => r.eval(w.script, w.keys, w.argv));
}

export interface PinnedFixture {
  config: TenantConfig;
  inbound: InboundMessage;
  now: Date;
  confirmation: PinnedTerms | null;
  approvals: PinnedTerms[];
}

/** A fresh tenant and contact with the rows pinning `staged` (saved unless `save` is false). */
export async function pinnedFixture(
  staged: StagedAction[],
  opts: { now?: Date; save?: boolean; text?: string } = {},
): Promise<PinnedFixture> {
  // The staged tags are configured: a decision re-checks each pinned action against the config.
  const demoTags = demoTenantConfig('unused').tags ?? [];
  const stagedTags = staged.flatMap((a) => (typeof a.args.tag === 'string' ? [{ name: a.args.tag }] : []));
  const config = stageConfig({
    tags: [...demoTags, ...stagedTags.filter((t) => !demoTags.some((d) => d.name === t.name))],
  });
  const inbound = inboundFor(config, opts.text ?? 'please do it', { contact: { name: 'Ada', fields: {} } });
  const now = opts.now ?? new Date();
  const pinned = await pinGatedActions({
    turnId: `turn_${uniqueId('p')}`,
    inbound,
    staged,
    manifest: config.manifest,
    secret: PIN_SECRET,
    now,
  });
  if (opts.save !== false)
    await savePinned([...(pinned.confirmation ? [pinned.confirmation] : []), ...pinned.approvals]);
  return { config, inbound, now, ...pinned };
}

/** Rewrites a row's stored terms behind the code's back (what tampering in Redis looks like). */
export async function overwriteTerms(terms: PinnedTerms): Promise<void> {
  await session().one((r) => r.set(tenantKeys(terms.tenantId).pinnedTerms(terms.id), JSON.stringify(terms)));
}
