import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, tampers, verifyBody } from '../../../../test/support/http.ts';
import { redteamScan } from './operation.ts';

const service = useTestService();

describe('red-team authorized scan over HTTP', () => {
  it('quotes with 402 and refuses a proof without a window with 422', async () => {
    expect((await postJson(`${service.url}/v1/security/redteam/authorized-scan`, redteamScan.example)).status).toBe(402);
    const bad = await postJson(`${service.url}/v1/security/redteam/authorized-scan`, { target: 'x', authorization: [{ target: 'x', scope: ['x'], issuer: 'y', signature: 'z' }] });
    expect(bad).toMatchObject({ status: 422, body: { issues: expect.arrayContaining([expect.objectContaining({ path: 'authorization.0.not_before' }), expect.objectContaining({ path: 'authorization.0.not_after' })]) } });
  });

  it('without a proof: a paid, signed refusal that re-checks on POST /v1/security/redteam/recheck; every tamper fails', async () => {
    const pay = createPayingFetch();
    const res = await pay(`${service.url}/v1/security/redteam/authorized-scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(redteamScan.example) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { evidenceCore: Record<string, JsonValue>; sha256: string; ed25519Sig: string };
    expect(body.evidenceCore).toMatchObject({ outcome: 'REFUSED', findings: [] });
    expect((await verifyBody(service, 'POST', '/v1/security/redteam/recheck', body.evidenceCore, body.sha256, body.ed25519Sig)).valid).toBe(true);
    for (const t of tampers(body.evidenceCore, body.sha256, body.ed25519Sig)) expect((await verifyBody(service, 'POST', '/v1/security/redteam/recheck', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });
});
