import { describe, expect, it } from 'vitest';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, tampers } from '../../../../test/support/http.ts';
import { budgetPreflight } from './operation.ts';

const service = useTestService();

describe('budget preflight over HTTP', () => {
  it('quotes with 402 and refuses a float cap with 422 naming the field', async () => {
    expect((await postJson(`${service.url}/v1/budget/preflight`, budgetPreflight.example)).status).toBe(402);
    const bad = await postJson(`${service.url}/v1/budget/preflight`, { ...(budgetPreflight.example as object), policy: { max_per_call_usd: 1 } });
    expect(bad).toMatchObject({ status: 422, body: { issues: [{ path: 'policy.max_per_call_usd' }] } });
  });

  it('is paid, and re-checks offline with the budget public key (no free verify route); every tamper fails', async () => {
    const pay = createPayingFetch();
    const res = await pay(`${service.url}/v1/budget/preflight`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(budgetPreflight.example) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { evidenceCore: Record<string, JsonValue>; sha256: string; ed25519Sig: string; publicKeyUrl: string };
    expect(body.evidenceCore['outcome']).toBe('ALLOW');
    const { publicKey } = (await (await fetch(body.publicKeyUrl.replace(/^https?:\/\/[^/]+/, service.url))).json()) as { publicKey: string };
    expect(checkSignedRecord(body.evidenceCore, body.sha256, body.ed25519Sig, publicKey).valid).toBe(true);
    for (const t of tampers(body.evidenceCore, body.sha256, body.ed25519Sig)) expect(checkSignedRecord(t.record, t.sha256, t.signature, publicKey).valid, t.name).toBe(false);
  });
});
