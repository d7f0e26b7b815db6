import { describe, expect, it } from 'vitest';
import { FINISH_TURN_PATH } from '../../core/finish-turn-job.js';
import { QSTASH_CLOCK_TOLERANCE_S } from '../../src/http/middleware/qstash-signature.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { workerEnv } from '../support/workers-env.js';
import { appWith } from './turn-helpers.js';

/**
 * QStash's clock and the edge's differ. A signature is checked on nbf (issued "now" by QStash's
 * clock) and exp (5 minutes later): a tolerance of 5 s made every delivery, finish job and inbound
 * retry 401 when QStash ran 6 s ahead. Real skews (tens of seconds) fit, both ways; a token far
 * outside its lifetime still does not.
 */
async function post(issuedAt: number) {
  const body = '{}'; // signed, and then refused as a job: a 400 shows the signature passed
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}${FINISH_TURN_PATH}`;
  const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body, issuedAt });
  const res = await appWith(scriptedModel([{ reply: reply('x') }])).fetch(
    new Request(`http://worker.test${FINISH_TURN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'upstash-signature': signature },
      body,
    }),
  );
  return res.status;
}
const now = () => Math.floor(Date.now() / 1000);

describe('QStash signature clock tolerance', () => {
  it('tolerates tens of seconds of skew both ways', async () => {
    for (const skew of [6, 20, 30]) expect(await post(now() + skew), `QStash ${skew} s ahead`).toBe(400);
    // Behind: the token is 5 minutes old plus the skew.
    for (const skew of [6, 30])
      expect(await post(now() - 300 - skew), `QStash ${skew} s behind, at the end of the token's life`).toBe(400);
    expect(QSTASH_CLOCK_TOLERANCE_S).toBeLessThanOrEqual(120);
  });

  it('still refuses a token issued far in the future or long expired', async () => {
    expect(await post(now() + QSTASH_CLOCK_TOLERANCE_S + 60)).toBe(401);
    expect(await post(now() - 300 - QSTASH_CLOCK_TOLERANCE_S - 60)).toBe(401);
  });
});
