import { signHubBody } from '../src/channels/messenger/hub-signature.js';

/**
 * A ready-to-paste Messenger webhook for `npm start`: the body Meta would post for one text
 * message, and `X-Hub-Signature-256` computed over exactly those bytes with the tenant's app
 * secret. Pasting it twice sends the same `mid` (one turn: Meta's retry); edit the mid and the
 * signature no longer matches (401) — print a new one by restarting, or sign with the helper.
 */
export async function signedMessengerCurl(input: {
  workerUrl: string;
  tenantId: string;
  appSecret: string;
  pageId: string;
  psid: string;
  text: string;
  now?: number;
}): Promise<string> {
  const at = input.now ?? Date.now();
  const body = JSON.stringify({
    object: 'page',
    entry: [
      {
        id: input.pageId,
        time: at,
        messaging: [
          {
            sender: { id: input.psid },
            recipient: { id: input.pageId },
            timestamp: at,
            message: { mid: `m_demo_${at}`, text: input.text },
          },
        ],
      },
    ],
  });
  if (body.includes("'")) throw new Error('the demo message must not contain a single quote (it is pasted inside one)');
  const signature = await signHubBody(body, input.appSecret);
  return `curl -s -X POST ${input.workerUrl}/v1/messenger/${input.tenantId} \\
  -H 'content-type: application/json' -H 'x-hub-signature-256: ${signature}' \\
  -d '${body}'`;
}
