/**
 * `npm start`: the whole product locally, no accounts, no network. Redis (reused or started),
 * the Upstash REST bridge, the QStash broker, the ManyChat/Messenger sandbox and `wrangler dev`.
 */
import { startLocalStack, writeStackFacts } from './stack.js';
import { pingRedis } from './redis-server.js';
import { commandsNewerThan } from './upstash-redis-rest/redis-version.js';
import { signedMessengerCurl } from './messenger-curl.js';
import { DEMO_MESSENGER, DEMO_PAGE_ID, demoChannelBody } from './demo-tenant.js';

const preferredPort = Number(process.env.PORT ?? 8787);
/** As on Cloudflare: the cron every minute; the sandbox as ManyChat is for a live business; the Worker's log lines shown. */
const cronEveryMs = 60_000;
const NPM_START_STACK = { cronEveryMs, liveSandbox: true, workerLogLevel: 'log' } as const;

/** A box of stars around `lines`, every line padded to the same width. */
function banner(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const edge = `  ${'*'.repeat(width + 6)}`;
  return [edge, ...lines.map((l) => `  *  ${l.padEnd(width)}  *`), edge].join('\n');
}

async function main() {
  const started = Date.now();
  const portFree = !(await pingRedis('127.0.0.1', preferredPort, 200)) && (await isPortFree(preferredPort));
  const stack = await startLocalStack({
    withWorker: true,
    workerPort: portFree ? preferredPort : undefined,
    ...NPM_START_STACK,
    stateDir: process.env.STACK_STATE_DIR,
    log: (l) => console.log(l),
  });
  const file = await writeStackFacts(stack.facts, process.env.STACK_STATE_DIR);
  const { facts } = stack;
  // -i: the answer's headers (x-turn-id names the turn; x-duplicate-of a repeat) are what the user reads next.
  const curl = `curl -s -i -X POST ${facts.workerUrl}/v1/manychat/${facts.demo.tenantId} \\
  -H 'content-type: application/json' -H 'x-staged-agent-secret: ${facts.demo.webhookSecret}' \\
  -d '{"contact":{"id":"${facts.demo.contactId}","first_name":"Ada"},"text":"Hi! Can you send me the brochure?"}'`;
  const channelCurl = (
    channel: 'instagram' | 'whatsapp',
    text: string,
  ) => `curl -s -X POST ${facts.workerUrl}/v1/manychat/${facts.demo.tenantId} \\
  -H 'content-type: application/json' -H 'x-staged-agent-secret: ${facts.demo.webhookSecret}' \\
  -d '${JSON.stringify(demoChannelBody(channel, text, new Date(0)))
    .replace(/'/g, "'\\''")
    .replace(/1970-01-01T00:00:00\+00:00/g, `'"$(date -u +%Y-%m-%dT%H:%M:%S+00:00)"'`)}'`;
  const instagramCurl = channelCurl('instagram', 'Please note that I prefer pilates.');
  const whatsappCurl = channelCurl('whatsapp', 'What are your opening hours?');
  const messengerCurl = await signedMessengerCurl({
    workerUrl: facts.workerUrl!,
    tenantId: facts.demo.tenantId,
    appSecret: DEMO_MESSENGER.appSecret,
    pageId: DEMO_PAGE_ID,
    psid: facts.demo.contactId,
    text: 'Hi! What are your opening hours?',
  });
  console.log(`
staged-agent is running (${((Date.now() - started) / 1000).toFixed(1)} s)

  Worker             ${facts.workerUrl}            (health: ${facts.workerUrl}/v1/health)
  Redis              ${facts.redisUrl}   version ${facts.redisVersion}${stack.redis.owned ? ', started for this run, no persistence' : ', reused'}${olderThanUpstashNote(facts.redisVersion)}
  Upstash REST       ${facts.upstash.url}     token ${facts.upstash.token}
  QStash broker      ${facts.qstash.url}     messages: ${facts.qstash.url}/__dev/messages
  ManyChat sandbox   ${facts.manychat.url}     calls: ${facts.manychat.callsUrl}
                     any contact who writes in is a subscriber; every saved tenant config's flows, tags and fields exist on its page
  Cron               the Worker's scheduled handler every ${Math.round(cronEveryMs / 1000)} s (outbox sweep, stranded turns, approval expiry)
  Demo tenant        id "${facts.demo.tenantId}", webhook secret "${facts.demo.webhookSecret}", admin secret "${facts.demo.adminSecret}", contact ${facts.demo.contactId}
  Dashboard          ${facts.demo.dashboard.url}   log in: tenant "${facts.demo.tenantId}", user "${facts.demo.dashboard.user}", password "${facts.demo.dashboard.password}"
  Operator secret    ${facts.operatorSecret}   (npm run tenant -- …)
  Stack facts        ${file}
${facts.offlineModel ? `\n${banner(['No OPENAI_API_KEY: the OFFLINE RULE MODEL answers', '(deterministic, driven by the tenant config, no network).'])}\n` : ''}
Try it:

${curl}

(The same text from the same contact within a minute is the same message — ManyChat's retry — and
answers \`x-duplicate-of\` with the first turn's reply; change the text or wait a minute.)

Instagram, through ManyChat (the walkthrough's template: "channel" and Full Contact Data with ig_id,
ig_username, ig_last_interaction); the answer is an Instagram Dynamic Block with Yes/No quick
replies — press Yes as ManyChat would by piping it into dev/press-button.ts (paste it in this
repository's folder: the pipe runs that file):

${instagramCurl} \\
  | npx tsx dev/press-button.ts Yes

It prints what Grace was asked and "x-confirmation-outcome: confirmed"; a moment later the Yes is performed:
curl -s '${facts.manychat.callsUrl}?path=/fb/subscriber/setCustomFieldByName'

WhatsApp, through ManyChat (no quick replies there: buttons ride on the text message):

${whatsappCurl}

(Each paste stamps ig_last_interaction / last_interaction with the shell's clock: that time is the
message's key, so two pastes within the same second are one message, as ManyChat's retry would be.)

Messenger (signed with the demo app secret; answered 200 at once, the reply goes out through the outbox):

${messengerCurl}

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
  return missing
    ? `\n                     lacks, unlike Upstash (the REST bridge answers them with an error saying so): ${missing}`
    : '';
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
