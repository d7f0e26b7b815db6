import { z } from 'zod';
import { defineActionKind } from './action-kind.js';

/**
 * Part of a handoff on Messenger: the Handover Protocol's `pass_thread_control`, giving the
 * conversation to the tenant's human-facing app (the Page Inbox, 263902037430900, or a CRM app).
 * While that app holds the thread Meta sends our app the contact's messages as `standby` (never
 * answered); the team gives it back from the inbox ("mark as done" passes control back), or the
 * release route takes it back (`take_thread_control`). A system action, never staged by the model.
 * Idempotent: passing a thread the target already holds changes nothing.
 */
export const passThreadControl = defineActionKind({
  name: 'pass_thread_control',
  args: z.object({
    targetAppId: z.string().regex(/^\d{1,30}$/, 'a numeric Meta app id'),
    /** Handed to the target app with the thread (Meta: at most 1000 characters). */
    metadata: z.string().max(1000).optional(),
  }),
  messagesContact: false,
  // Messenger's Handover Protocol only: no ManyChat performer.
  manyChatChannels: [],
  idempotent: true,
  resource: () => null,
  check: () => null,
  summary: (args) => `hand the thread to app ${args.targetAppId}`,
  undoKind: null,
  perform: { messenger: (api, contactId, args) => api.passThreadControl(contactId, args.targetAppId, args.metadata) },
});
