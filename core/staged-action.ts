import { z } from 'zod';

/** What a performed action does at the ManyChat (or Messenger) API. */
export const ActionKindSchema = z.enum(['send_flow', 'send_content', 'add_tag', 'remove_tag', 'set_field', 'live_chat']);
export type ActionKind = z.infer<typeof ActionKindSchema>;

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

/** Send-type actions deliver content twice if retried: ManyChat has no idempotency key. */
export function isIdempotentKind(kind: ActionKind): boolean {
  return kind === 'add_tag' || kind === 'remove_tag' || kind === 'set_field' || kind === 'live_chat';
}
