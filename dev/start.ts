/**
 * `npm start`: the whole product locally, no accounts, no network. Redis (reused or started),
 * the Upstash REST bridge, the QStash broker, the ManyChat/Messenger sandbox and `wrangler dev`.
 */
import { startLocalStack, writeStackFacts } from './stack.js';
import { pingRedis } from './redis-server.js';
import { commandsNewerThan } from './upstash-redis-rest/redis-version.js';

const preferredPort = Number(process.env.PORT ?? 8787);

async function main() {
  const started = Date.now();
  const portFree = !(await pingRedis('127.0.0.1', preferredPort, 200)) && (await isPortFree(preferredPort));
  const stack = await startLocalStack({ withWorker: true, workerPort: portFree ? preferredPort : undefined, log: (l) => console.log(l) });
  const file = await writeStackFacts(stack.facts);
  const { facts } = stack;
  const curl = `curl -s -X POST ${facts.workerUrl}/v1/manychat/${facts.demo.tenantId} \\
  -H 'content-type: application/json' -H 'x-staged-agent-secret: ${facts.demo.webhookSecret}' \\
  -d '{"contact":{"id":"${facts.demo.contactId}","first_name":"Ada"},"text":"Hi! Can you send me the brochure?"}'`;
  console.log(`
staged-agent is running (${((Date.now() - started) / 1000).toFixed(1)} s)

  Worker             ${facts.workerUrl}            (health: ${facts.workerUrl}/v1/health)
  Redis              ${facts.redisUrl}   version ${facts.redisVersion}${stack.redis.owned ? ', started for this run, no persistence' : ', reused'}${olderThanUpstashNote(facts.redisVersion)}
  Upstash REST       ${facts.upstash.url}     token ${facts.upstash.token}
  QStash broker      ${facts.qstash.url}     messages: ${facts.qstash.url}/__dev/messages
  ManyChat sandbox   ${facts.manychat.url}     calls: ${facts.manychat.callsUrl}
  Demo tenant        id "${facts.demo.tenantId}", webhook secret "${facts.demo.webhookSecret}", contact ${facts.demo.contactId}
  Dashboard          ${facts.demo.dashboard.url}   log in: tenant "${facts.demo.tenantId}", user "${facts.demo.dashboard.user}", password "${facts.demo.dashboard.password}"
  Stack facts        ${file}
${facts.offlineModel ? `
  ******************************************************************************
  *  No OPENAI_API_KEY: the OFFLINE RULE MODEL answers (deterministic, no network). *
  ******************************************************************************
` : ''}
Try it:

${curl}

Then see what the agent performed: curl -s ${facts.manychat.callsUrl}

Ctrl-C stops everything.
`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    await stack.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  stack.worker?.once('exit', (code) => {
    if (!stopping) {
      console.error(`wrangler dev exited (${code}); stopping the stack`);
      void stop();
    }
  });
}

/** Upstash runs a recent Redis; say up front which client commands an older local one lacks. */
function olderThanUpstashNote(version: string): string {
  const missing = commandsNewerThan(version);
  return missing ? `\n                     lacks, unlike Upstash (the REST bridge answers them with an error saying so): ${missing}` : '';
}

async function isPortFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

main().catch((err) => {
  console.error(`npm start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
