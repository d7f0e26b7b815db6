import { createApp } from '../src/app.ts';
const app = createApp();
const r: any = (app as any).router;
const paths = ['/v1/manychat/tenant-one/webhook', '/v1/outbox/deliver'];
for (const p of paths) r.match('POST', p);
console.log('router', r.activeRouter?.name ?? r.name);
for (const p of paths) {
  const n = 20000; const t = performance.now();
  for (let i = 0; i < n; i++) r.match('POST', p + (i % 2 ? '' : ''));
  console.log(p, ((performance.now() - t) / n * 1000).toFixed(2), 'µs/match');
}
