import { z } from 'zod';

import { ACTION_KIND_NAMES, type ActionKind } from './actions/index.js';

export type { ActionKind };

/** What a performed action does at the ManyChat (or Messenger) API (core/actions/, one file a kind). */
export const ActionKindSchema = z.enum(ACTION_KIND_NAMES);

export const StagedActionSchema = z.object({
  id: z.string(),
  /** The tool that staged it, or `system:<what>` for actions code adds (handoff, async reply). */
  tool: z.string(),
  kind: ActionKindSchema,
  args: z.record(z.string(), z.unknown()),
  effect: z.enum(['write', 'destructive']),
  /** Idempotent actions may be retried until done; the others run at most once. */
  idempotent: z.boolean(),
  gate: z.enum(['none', 'confirm', 'approval']),
  /** What a person reads about it (dashboard, approval card, logs). */
  summary: z.string(),
});
export type StagedAction = z.infer<typeof StagedActionSchema>;
