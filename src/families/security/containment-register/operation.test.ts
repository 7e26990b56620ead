import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, tampers, verifyBody } from '../../../../test/support/http.ts';
import { edSigner } from '../../../../test/support/keys.ts';
import { fetchQuote, signPayment } from '../../../../test/support/x402-payments.ts';
import { agentProofMessage } from './agent-proof.ts';
import type { ContainmentInput } from './engine.ts';
import { containmentRegister } from './operation.ts';
import { writeLegacyContainmentChain } from './legacy-chain.test-support.ts';

const service = useTestService();
const path = '/v1/containment/register';
const post = (pay: typeof fetch, body: unknown) => pay(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('containment register over HTTP', () => {
  it('quotes with 402 and refuses a rule without a signature with 422 naming the field', async () => {
    expect((await postJson(`${service.url}${path}`, containmentRegister.example)).status).toBe(402);
    const bad = await postJson(`${service.url}${path}`, { agent_did: 'did:web:a.example', rules: [{ action: 'notify', trigger: 't', target: 'x', signer: 'did:key:z6Mk' }] });
    expect(bad).toMatchObject({ status: 422, body: { issues: [{ path: 'rules.0.signature' }] } });
  });

  it('refuses a policy nested deeper than 32 levels free, before the quote, rather than fail to write its record after payment', async () => {
    let policy: JsonValue = { escalation: 'notify' };
    for (let level = 0; level < 40; level++) policy = { nested: policy };
    expect(await postJson(`${service.url}${path}`, { agent_did: 'did:web:deep.example', policy })).toMatchObject({ status: 422, body: { issues: [{ path: 'policy', message: 'must not nest deeper than 32 levels' }] } });
  });

  it("is paid, persisted, superseded in its payer's own chain, and re-checked on GET /v1/containment/verify; every tamper fails", async () => {
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

    expect(again.evidenceCore).toMatchObject({ registered_by: { party: 'payer', address: alice.address.toLowerCase() }, ruleset: { version: '3' } });
  });

  it('names one agent by one text: another spelling of a DID is refused free, so one agent has one chain per payer', async () => {
    const agent = `did:web:victim-${Date.now()}.example.com`;
    expect((await post(createPayingFetch(), { agent_did: agent })).status).toBe(200);
    const mallory = createPayingFetch();
    const spellings = [agent.replace('did:web:v', 'did:web:V'), agent.replace('.example', '%2Eexample'), agent.replace('.example', '%2eexample'), `${agent}.`, `${agent}%3A443`, agent.replace('.example', '%EF%BC%8Eexample')];
    for (const spelling of spellings) {
      const res = await post(mallory, { agent_did: spelling });
      expect(res.status, spelling).toBe(422);
      expect(await res.json()).toMatchObject({ issues: [{ path: 'agent_did', message: `not in its canonical form: send ${agent}` }] });
    }
    expect((await post(mallory, { agent_did: agent })).status).toBe(200);
  });
});

describe('containment register over HTTP: no payer takes an agent\'s name from another', () => {
  type Registered = { evidenceCore: Record<string, JsonValue> };
  const registered = async (res: Response) => {
    expect(res.status).toBe(200);
    return ((await res.json()) as Registered).evidenceCore;
  };

  it('a stranger who registers a did:web agent first neither blocks nor changes the registrations its operator makes (each payer its own chain)', async () => {
    // A did:web agent cannot prove itself offline: before, the first payer owned its name for good and every other payer met 403.
    const agent = `did:web:ops-${Date.now()}.example.com`;
    const stranger = createPayingFetch();
    const operator = createPayingFetch();
    const squatted = await registered(await post(stranger, { agent_did: agent, policy: { escalation: 'none' } }));
    const own = await registered(await post(operator, { agent_did: agent, emergency_contact_did: 'did:web:ops.example.com', policy: { escalation: 'notify, then throttle' } }));
    expect(own).toMatchObject({ version: 1, supersedes: null, agent_controlled: false, registered_by: { party: 'payer', address: operator.address.toLowerCase() } });

    const strangerAgain = await registered(await post(stranger, { agent_did: agent, policy: { escalation: 'none at all' } }));
    expect(strangerAgain).toMatchObject({ version: 2, supersedes: squatted['registration_id'], registered_by: { party: 'payer', address: stranger.address.toLowerCase() } });
    const ownAgain = await registered(await post(operator, { agent_did: agent, policy: { escalation: 'throttle' } }));
    expect(ownAgain).toMatchObject({ version: 2, supersedes: own['registration_id'] });
  });

  it('a chain opened before registrations were scoped to their payer stays its payer\'s: that payer extends it, another payer starts its own', async () => {
    const agent = `did:web:legacy-${Date.now()}.example.com`;
    const first = createPayingFetch();
    const legacy = await writeLegacyContainmentChain(service.deps.store, first.address, agent);
    const continued = await registered(await post(first, { agent_did: agent }));
    expect(continued).toMatchObject({ version: 2, supersedes: legacy.registration_id, registered_by: { party: 'payer', address: first.address.toLowerCase() } });
    const other = await registered(await post(createPayingFetch(), { agent_did: agent }));
    expect(other).toMatchObject({ version: 1, supersedes: null });
  });
});

describe('containment register over HTTP: the agent takes back a registration made in its name', () => {
  type Registered = { evidenceCore: Record<string, JsonValue> };
  const clock = () => Math.floor(Date.now() / 1000);
  const proven = (declaration: ContainmentInput, signedAt: number, signer: { sign(message: string): string }): ContainmentInput => ({ ...declaration, agent_proof: { signed_at: signedAt, signature: signer.sign(agentProofMessage(declaration, signedAt)) } });
  const refusalOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as { error: string; message: string } });

  it("a squatter registers first in its own chain; the agent, paying from another wallet, opens its own chain with its proof; replays of the agent's proof are refused (403, nothing charged)", async () => {
    const agent = edSigner(0x71);
    const squatted: ContainmentInput = { agent_did: agent.didKey, emergency_contact_did: 'did:web:squatter.example', policy: { escalation: 'none' } };
    const own: ContainmentInput = { agent_did: agent.didKey, emergency_contact_did: 'did:web:ops.example.com', policy: { escalation: 'notify the contact, then throttle to read-only' } };
    const squatter = createPayingFetch();
    const first = await post(squatter, squatted);
    expect(first.status).toBe(200);
    const squatterRecord = ((await first.json()) as Registered).evidenceCore;
    expect(squatterRecord).toMatchObject({ agent_proof: { status: 'NOT-PROVIDED' }, agent_controlled: false });
    expect(squatterRecord).toMatchObject({ registered_by: { party: 'payer', address: squatter.address.toLowerCase() } });

    // The agent's own registration, paid by hand so the very same payment can be sent again.
    const reclaim = proven(own, clock(), agent);
    const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(reclaim) };
    const payment = await signPayment(await fetchQuote(`${service.url}${path}`, request));
    const paid = await fetch(`${service.url}${path}`, { ...request, headers: { ...request.headers, 'PAYMENT-SIGNATURE': payment.header } });
    expect(paid.status).toBe(200);
    const reclaimText = await paid.text();
    const reclaimed = (JSON.parse(reclaimText) as Registered).evidenceCore;
    expect(reclaimed).toMatchObject({ version: 1, supersedes: null, agent_controlled: true, registered_by: { party: 'agent', did: agent.didKey }, emergency_contact_did: 'did:web:ops.example.com', agent_proof: { status: 'VERIFIED', scheme: 'ed25519', signed_at: reclaim.agent_proof!.signed_at } });
    // A retry with the same payment answers the same record, though its proof is no longer later than the stream's.
    const retried = await fetch(`${service.url}${path}`, { ...request, headers: { ...request.headers, 'PAYMENT-SIGNATURE': payment.header } });
    expect(retried.status).toBe(200);
    expect(await retried.text()).toBe(reclaimText);

    // The squatter's unproven registrations stay in its own chain, whatever key it signs with; the agent's chain is untouched.
    const unproven = (await (await post(squatter, proven(squatted, clock(), edSigner(0x72)))).json()) as Registered;
    expect(unproven.evidenceCore).toMatchObject({ version: 2, supersedes: squatterRecord['registration_id'], agent_controlled: false, agent_proof: { status: 'FAILED' }, registered_by: { party: 'payer' } });
    const replayed = await refusalOf(await post(squatter, reclaim));
    expect(replayed).toMatchObject({ status: 403, body: { error: 'forbidden', message: expect.stringContaining('with a later signed_at') } });
    expect(replayed.body.message).toMatch(/nothing was charged$/);

    // The agent itself supersedes again with a fresh proof, from any wallet.
    const again = await post(createPayingFetch(), proven({ ...own, rules: [] }, reclaim.agent_proof!.signed_at + 1, agent));
    expect(again.status).toBe(200);
    expect(((await again.json()) as Registered).evidenceCore).toMatchObject({ version: 2, supersedes: reclaimed['registration_id'], agent_controlled: true });
  });

  it('a proof by another key is recorded FAILED and gives no control; a registration without a proof of a new agent works as before', async () => {
    const agent = edSigner(0x73);
    const declaration: ContainmentInput = { agent_did: agent.didKey, policy: { escalation: 'notify' } };
    const res = await post(createPayingFetch(), proven(declaration, clock(), edSigner(0x74)));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Registered).evidenceCore).toMatchObject({ version: 1, agent_controlled: false, agent_proof: { status: 'FAILED', scheme: 'ed25519', reason: expect.stringContaining('Ed25519 signature does not verify') } });

    const plain = await post(createPayingFetch(), { agent_did: edSigner(0x75).didKey });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as Registered).evidenceCore).toMatchObject({ version: 1, supersedes: null, agent_controlled: false, agent_proof: { status: 'NOT-PROVIDED' } });
  });

  it('a did:web agent cannot prove offline (UNRESOLVED); a proof signed more than 300 s away is refused free, before the quote', async () => {
    const web = await post(createPayingFetch(), { agent_did: `did:web:agent-${Date.now()}.example.com`, agent_proof: { signed_at: clock(), signature: 'ab'.repeat(64) } });
    expect(((await web.json()) as Registered).evidenceCore).toMatchObject({ agent_controlled: false, agent_proof: { status: 'UNRESOLVED', reason: expect.stringContaining('unresolved (offline)') } });

    const agent = edSigner(0x76);
    const stale = await postJson(`${service.url}${path}`, proven({ agent_did: agent.didKey }, clock() - 3_600, agent));
    expect(stale).toMatchObject({ status: 422, body: { error: 'agent_proof_stale', issues: [{ path: 'agent_proof.signed_at' }] } });
  });
});
