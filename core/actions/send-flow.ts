import { z } from 'zod';
import { defineActionKind } from './action-kind.js';
import { MANYCHAT_CHANNELS } from '../manychat-channels.js';

/** ManyChat `sendFlow` of one of the tenant's configured flows (brochure, video, tour, …). */
export const sendFlow = defineActionKind({
  name: 'send_flow',
  args: z.object({ flowNs: z.string().min(1), flowName: z.string().min(1) }),
  // ManyChat has no idempotency key: a resend delivers the flow twice.
  messagesContact: true,
  idempotent: false,
  resource: (args) => `flow:${args.flowName}`,
  check(args, config) {
    const flow = config.flows.find((f) => f.name === args.flowName);
    if (!flow) return `flow "${args.flowName}" is not configured`;
    if (flow.ns !== args.flowNs)
      return `flow "${flow.name}" was staged with namespace "${args.flowNs}", not the configured one`;
    return null;
  },
  summary(args, config) {
    const flow = config.flows.find((f) => f.name === args.flowName);
    return `send flow "${args.flowName}"${flow ? ` (${flow.description})` : ''}`;
  },
  undoKind: null,
  contactWords: 'actionSendFlow',
  claims: ['send'],
  // ManyChat's API performs it on every channel it serves (docs/protocols.md).
  manyChatChannels: MANYCHAT_CHANNELS,
  perform: { manychat: (api, contactId, args) => api.sendFlow(contactId, args.flowNs) },
  tool: {
    resources: (config) => config.flows.map((f) => `flow:${f.name}`),
    narrow: (config, keep) => ({ ...config, flows: config.flows.filter((f) => keep(`flow:${f.name}`)) }),
    describe: (config) =>
      `Flows: ${config.flows.map((f) => `${f.name} (${f.description})`).join('; ') || 'none configured'}.`,
    input: (config) =>
      z.object({ flow: z.string().describe(`One of: ${config.flows.map((f) => f.name).join(', ') || '(none)'}`) }),
    resolve({ flow }, config) {
      const found = config.flows.find((f) => f.name === flow);
      if (!found)
        return {
          ok: false,
          refusal: `Refused: flow "${flow}" is not configured. Allowed flows: ${config.flows.map((f) => f.name).join(', ') || 'none'}.`,
        };
      return { ok: true, args: { flowNs: found.ns, flowName: found.name } };
    },
  },
});
