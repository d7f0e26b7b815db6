import { Hono } from 'hono';

/**
 * The benchmark's floor: a bare Hono handler on the same workerd (wrangler dev), same route and
 * body as the ManyChat webhook. It parses the JSON body and answers a fixed Dynamic Block, doing
 * no auth, no Redis, no model, no commit. `npm run bench` runs it beside the real Worker.
 */
const app = new Hono();

app.post('/v1/manychat/:tenant', async (c) => {
  const body = (await c.req.json()) as { contact?: { id?: string }; text?: string };
  const text = body.text ? 'Hello!' : 'Hi!';
  c.header('x-turn-id', `bare_${body.contact?.id ?? 'x'}`);
  return c.json({ version: 'v2', content: { messages: [{ type: 'text', text }], actions: [], quick_replies: [] } });
});

app.get('/v1/health', (c) => c.json({ ok: true, bare: true }));

export default app;
