import { generateText, tool } from 'ai';
import { it } from 'vitest';
import { z } from 'zod';
import { ReplySchema } from '../../domain/reply.js';
import { TenantConfigSchema } from '../../tenants/tenant-config.js';
import { createOfflineRuleModel } from '../offline-rule-model.js';

const config = TenantConfigSchema.parse({
  version: 1, tenantId: 't', displayName: 'T', persona: 'friendly', fallbackReply: 'x',
  flows: [{ name: 'brochure', ns: 'n', description: 'Brochure' }],
  tools: [{ name: 'send_media', kind: 'send_flow', description: 'd' }],
  handoff: { reply: 'h' },
});
it('probe', async () => {
  const model = createOfflineRuleModel(config);
  const tools = {
    send_media: tool({ inputSchema: z.object({ flow: z.string() }), execute: async () => 'staged as text' }),
    reply: tool({ inputSchema: ReplySchema }),
  };
  const messages = [{ role: 'user' as const, content: 'brochure' }];
  const first = await generateText({ model, tools, messages });
  console.log('RESP', JSON.stringify(first.responseMessages));
  console.log('CONTENT', JSON.stringify(first.content.map((c) => c.type)));
  try {
    const second = await generateText({ model, tools, messages: [...messages, ...first.responseMessages] });
    console.log('SECOND OK', JSON.stringify(second.content));
  } catch (e) {
    console.log('SECOND ERR', (e as Error).name, (e as Error).message);
  }
  const c = new AbortController(); c.abort();
  try { await generateText({ model, tools, messages, abortSignal: c.signal }); } catch (e) { console.log('ABORT', (e as Error).name, (e as Error).constructor.name, (e as Error).message); }
});
