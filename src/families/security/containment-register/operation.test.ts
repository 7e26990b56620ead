import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, tampers, verifyBody } from '../../../../test/support/http.ts';
import { containmentRegister } from './operation.ts';

const service = useTestService();
const path = '/v1/containment/register';
const post = (pay: typeof fetch, body: unknown) => pay(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('containment register over HTTP', () => {
  it('quotes with 402 and refuses a rule without a signature with 422 naming the field', async () => {
    expect((await postJson(`${service.url}${path}`, containmentRegister.example)).status).toBe(402);
    const bad = await postJson(`${service.url}${path}`, { agent_did: 'did:web:a.example', rules: [{ action: 'notify', trigger: 't', target: 'x', signer: 'did:key:z6Mk' }] });
    expect(bad).toMatchObject({ status: 422, body: { issues: [{ path: 'rules.0.signature' }] } });
  });

  it('is paid, persisted, superseded only by its registrar, and re-checked on GET /v1/containment/verify; every tamper fails', async () => {
    const alice = createPayingFetch();
    const res = await post(alice, containmentRegister.example);
    expect(res.status).toBe(200);
    const first = (await res.json()) as { evidenceCore: Record<string, JsonValue>; sha256: string; ed25519Sig: string };
    expect(first.evidenceCore).toMatchObject({ readiness: 'READY', version: 1 });
    expect((await verifyBody(service, 'GET', '/v1/containment/verify', first.evidenceCore, first.sha256, first.ed25519Sig)).valid).toBe(true);
    for (const t of tampers(first.evidenceCore, first.sha256, first.ed25519Sig))
      expect((await verifyBody(service, 'GET', '/v1/containment/verify', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);

    const again = (await (await post(alice, { ...containmentRegister.example, policy: { escalation: 'notify only' } })).json()) as { evidenceCore: Record<string, JsonValue> };
    expect(again.evidenceCore).toMatchObject({ version: 2, supersedes: first.evidenceCore['registration_id'] });

    const mallory = createPayingFetch();
    const refused = await post(mallory, { ...containmentRegister.example, rules: [] });
    expect(refused.status).toBe(403);
  });

  it('names one agent by one text: another spelling of a registered DID is refused free, not registered anew by another payer', async () => {
    const agent = `did:web:victim-${Date.now()}.example.com`;
    expect((await post(createPayingFetch(), { agent_did: agent })).status).toBe(200);
    const mallory = createPayingFetch();
    const spellings = [agent.replace('did:web:v', 'did:web:V'), agent.replace('.example', '%2Eexample'), agent.replace('.example', '%2eexample'), `${agent}.`, `${agent}%3A443`, agent.replace('.example', '%EF%BC%8Eexample')];
    for (const spelling of spellings) {
      const res = await post(mallory, { agent_did: spelling });
      expect(res.status, spelling).toBe(422);
      expect(await res.json()).toMatchObject({ issues: [{ path: 'agent_did', message: `not in its canonical form: send ${agent}` }] });
    }
    expect((await post(mallory, { agent_did: agent })).status).toBe(403);
  });
});
