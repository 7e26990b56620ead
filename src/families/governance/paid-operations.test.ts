import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../signing/rfc8785.ts';
import { createPayingFetch } from '../../../test/support/paying-client.ts';
import { ownerProofMessage } from './spend-governor/owner-proof.ts';
import { writeLegacyAgent } from './spend-governor/legacy-agent.test-support.ts';
import { postTo, useTestService } from '../../../test/support/service.ts';

/**
 * The governance family over real HTTP, paid with the official x402 client (local settlement):
 * a real 402 and a real paid answer of this very service audit as conformant; the audit joins
 * the corpus and its inclusion proof verifies; the spend governor's agents per payer and idempotency.
 */

const service = useTestService();
const pay = createPayingFetch();
const otherPayer = createPayingFetch();

interface Capture {
  status: number;
  headers: Record<string, string>;
  body: JsonValue;
}

async function capture(res: Response): Promise<Capture> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: res.status, headers, body: (await res.json()) as JsonValue };
}

let lastBody: string | undefined;
async function paid(path: string, body: unknown, fetcher: typeof fetch = pay): Promise<JsonObject> {
  lastBody = JSON.stringify(body);
  const res = await postTo(service, path, body, fetcher);
  const json = (await res.json()) as JsonObject;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

async function recheck(path: string, signed: JsonObject): Promise<{ valid: boolean; reason?: string }> {
  const res = await postTo(service, path, { evidenceCore: signed.evidenceCore, sha256: signed.sha256, signature: signed.ed25519Sig });
  expect(res.status).toBe(200);
  return (await res.json()) as { valid: boolean; reason?: string };
}

const statuses = (audit: JsonObject) => Object.fromEntries((audit.checks as Array<{ id: string; status: string }>).map((c) => [c.id, c.status]));

describe('bureau over HTTP', () => {
  let audit: JsonObject;

  it('audits a real 402 and a real paid answer of this very service as passing every check', async () => {
    const claim = { kind: 'model-eval', claim: { model: 'm', score: 0.5 } };
    const challenge = await capture(await postTo(service, '/v1/veritrack/attest', claim));
    expect(challenge.status).toBe(402);
    const paidAnswer = await capture(await postTo(service, '/v1/veritrack/attest', claim, pay));
    expect(paidAnswer.status).toBe(200);
    const key = (await (await fetch(`${service.url}/v1/veritrack/public-key`)).json()) as { publicKey: string };

    audit = await paid('/v1/bureau/audit', { endpoint: { url: `${service.url}/v1/veritrack/attest`, method: 'POST' }, challenge, paid: paidAnswer, publicKey: key.publicKey });
    const record = audit.evidenceCore as JsonObject;
    expect(Object.entries(statuses(record)).filter(([, s]) => s !== 'pass')).toEqual([]);
    expect(record).toMatchObject({ outcome: 'CONFORMANT', defects: [], ruleset: { id: 'x402-conformance', version: '1' } });
    // A conformance verdict over a transcript the bureau did not observe says so.
    expect(record).toMatchObject({ evidence_source: 'caller-supplied', not_performed: expect.arrayContaining([expect.objectContaining({ check: 'live probe of the endpoint' })]) });
    expect(audit.verifyUrl).toBe(`${service.url}/v1/bureau/verify`);
    expect(await recheck('/v1/bureau/verify', audit)).toMatchObject({ valid: true });
    expect(await recheck('/v1/bureau/verify', { ...audit, evidenceCore: { ...record, auditedAt: (record.auditedAt as number) + 1 } })).toMatchObject({ valid: false });
    expect(await recheck('/v1/governance/verify', audit)).toMatchObject({ valid: false });
  });

  it('a handcrafted defective transcript fails its check and shows in the defect counts', async () => {
    const defective = await paid('/v1/bureau/audit', {
      endpoint: { url: 'https://api.example.com/x', method: 'GET' },
      challenge: { status: 402, headers: { 'PAYMENT-REQUIRED': Buffer.from(JSON.stringify({ x402Version: 2, resource: { url: 'https://api.example.com/x' }, accepts: [{ scheme: 'exact', network: 'base', amount: '1', asset: '0x0', payTo: '0x0', maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }] })).toString('base64'), 'Cache-Control': 'no-store', 'Access-Control-Expose-Headers': '*' } },
    });
    expect((defective.evidenceCore as JsonObject).defects).toEqual(['X402-NET-001']);
    // The same transcript from another payer, later: the same audit (its id comes from the transcript), not a second one.
    const again = await paid('/v1/bureau/audit', JSON.parse(lastBody!) as unknown, otherPayer);
    expect(again.evidenceCore).toEqual(defective.evidenceCore);
    const defects = (await (await fetch(`${service.url}/v1/bureau/defects`)).json()) as { audits: number; defects: Record<string, number> };
    expect(defects).toEqual({ audits: 2, defects: { 'X402-NET-001': 1 } });
  });

  it('every audit of the corpus has an inclusion proof that verifies against the signed anchor; a modified audit fails', async () => {
    const corpus = (await (await fetch(`${service.url}/v1/bureau/corpus?per_page=10`)).json()) as { total: number; anchor: JsonObject; items: JsonObject[] };
    expect(corpus.total).toBe(2);
    expect((corpus.items[1]!.evidenceCore as JsonObject).auditId).toBe((audit.evidenceCore as JsonObject).auditId);
    const anchor = corpus.anchor;
    expect(await recheck('/v1/bureau/verify', anchor)).toMatchObject({ valid: true });
    for (const item of corpus.items) {
      const body = { leaf: item.evidenceCore, proof: item.inclusionProof, anchor: anchor.evidenceCore, sha256: anchor.sha256, signature: anchor.ed25519Sig };
      expect(await (await postTo(service, '/v1/bureau/anchor/verify', body)).json()).toMatchObject({ valid: true, checks: { inclusion: true, anchorSignature: true } });
      const modified = { ...body, leaf: { ...(item.evidenceCore as JsonObject), auditedAt: ((item.evidenceCore as JsonObject).auditedAt as number) - 1 } };
      expect(await (await postTo(service, '/v1/bureau/anchor/verify', modified)).json()).toMatchObject({ valid: false, checks: { inclusion: false } });
    }
    const latest = (await (await fetch(`${service.url}/v1/bureau/corpus/latest`)).json()) as { found: boolean; item: JsonObject };
    expect(latest.found).toBe(true);
    expect(latest.item.leafIndex).toBe(1);
    expect((await postTo(service, '/v1/bureau/anchor/verify', { leaf: {}, proof: { leafIndex: 0 }, anchor: {} })).status).toBe(422);
  });

  it('serves the standard', async () => {
    const standard = (await (await fetch(`${service.url}/v1/bureau/standard`)).json()) as { version: string; checks: Array<{ id: string; reference: string }> };
    expect(standard.version).toBe('x402-conformance/v1');
    expect(standard.checks.length).toBeGreaterThanOrEqual(13);
    expect(standard.checks.every((c) => c.reference.startsWith('x402') || c.reference.startsWith('Issuer'))).toBe(true);
  });
});

/** secp256k1's group order: (r, n - s) with the other recovery id is the same signature's second valid form. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
function otherFormOf(signature: string): string {
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = parseInt(signature.slice(130), 16);
  return `${signature.slice(0, 66)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${v === 27 ? '1c' : '1b'}`;
}

describe('spend governor over HTTP', () => {
  const stateUrl = (agent: string, proof?: { signedAt: number; signature: string }) =>
    `${service.url}/v1/governance/state/${agent}${proof ? `?signed_at=${proof.signedAt}&owner_signature=${proof.signature}` : ''}`;
  // A proof reads once: each read here signs its own, at a second after every earlier one (all
  // within the window), however the clock moved in between; the same second would sign the same
  // proof, and one before the service's start is refused.
  let latestSignedAt = Number.NEGATIVE_INFINITY;
  const nextSignedAt = () => (latestSignedAt = Math.max(Math.floor(Date.now() / 1000), latestSignedAt + 1));
  const proofBy = async (signer: typeof pay, agent: string, signedAt = nextSignedAt()) => ({
    signedAt,
    signature: await signer.account.signMessage({ message: ownerProofMessage(agent, signedAt) }),
  });
  const stateOf = async (signer: typeof pay, agent: string) => (await (await fetch(stateUrl(agent, await proofBy(signer, agent)))).json()) as JsonObject;

  it("reserves and settles idempotently on the payer's own agent; another payer of the same agent_id gets its own budget, and A's lease is unknown to it", async () => {
    const lease = await paid('/v1/governance/reserve', { agent_id: 'http-agent', amount: '2', purpose: 'tools', ttl_seconds: 600, budget: { cap: '5', period: 3600 } });
    const record = lease.evidenceCore as JsonObject;
    expect(record).toMatchObject({ outcome: 'RESERVED', owner: pay.address.toLowerCase(), amount: '2', available: '3' });
    expect(await recheck('/v1/governance/verify', lease)).toMatchObject({ valid: true });

    // B reserving A's agent id: B's own budget, A's untouched.
    const theirs = await paid('/v1/governance/reserve', { agent_id: 'http-agent', amount: '0.01', purpose: 'squat', ttl_seconds: 60, budget: { cap: '0.01', period: 60 } }, otherPayer);
    expect(theirs.evidenceCore).toMatchObject({ outcome: 'RESERVED', owner: otherPayer.address.toLowerCase(), reserved: '0.01', available: '0' });
    expect(await stateOf(pay, 'http-agent')).toMatchObject({ found: true, owner: pay.address.toLowerCase(), reserved: '2', available: '3' });

    // B settling A's lease: the answer to an unknown lease, before settlement (nothing charged).
    const refusedSettle = await postTo(service, '/v1/governance/settle', { lease_id: record.lease_id, actual_amount: '1' }, otherPayer);
    expect(refusedSettle.status).toBe(422);
    expect(refusedSettle.headers.get('payment-response')).toBeNull();
    expect(await refusedSettle.json()).toMatchObject({ error: 'lease_not_found', outcome: 'NOT-FOUND', issues: [{ path: 'lease_id' }] });

    const overBudget = await postTo(service, '/v1/governance/reserve', { agent_id: 'http-agent', amount: '3.5', purpose: 'too much', ttl_seconds: 60 }, pay);
    expect(overBudget.status).toBe(422);
    expect(await overBudget.json()).toMatchObject({ outcome: 'BUDGET-EXCEEDED' });

    const first = await paid('/v1/governance/settle', { lease_id: record.lease_id, actual_amount: '1.5' });
    const second = await paid('/v1/governance/settle', { lease_id: record.lease_id, actual_amount: '1.5' });
    expect(second).toEqual(first);
    expect(first.evidenceCore).toMatchObject({ outcome: 'SETTLED', owner: pay.address.toLowerCase() });
    expect(await recheck('/v1/governance/verify', first)).toMatchObject({ valid: true });
    expect(await stateOf(otherPayer, 'http-agent')).toMatchObject({ found: true, owner: otherPayer.address.toLowerCase(), spent: '0', reserved: '0.01' });
  });

  it("reads the agent of the payer whose proof it is: A's proof reads A's, B's reads B's, no proof is refused saying how to make one", async () => {
    await paid('/v1/governance/reserve', { agent_id: 'state-agent', amount: '1', purpose: 'a', ttl_seconds: 600, budget: { cap: '5', period: 3600 } });
    await paid('/v1/governance/reserve', { agent_id: 'state-agent', amount: '3', purpose: 'b', ttl_seconds: 600, budget: { cap: '4', period: 7200 } }, otherPayer);

    const asA = await stateOf(pay, 'state-agent');
    expect(asA).toMatchObject({ found: true, agent_id: 'state-agent', owner: pay.address.toLowerCase(), budget: { cap: '5', period: 3600 }, reserved: '1', available: '4' });
    expect((asA.openLeases as JsonObject[]).map((l) => l.purpose)).toEqual(['a']);
    const asB = await stateOf(otherPayer, 'state-agent');
    expect(asB).toMatchObject({ found: true, owner: otherPayer.address.toLowerCase(), budget: { cap: '4', period: 7200 }, reserved: '3', available: '1' });
    expect((asB.openLeases as JsonObject[]).map((l) => l.purpose)).toEqual(['b']);
    // A signer with no agent of this id: its own answer, naming the address its proof recovers to.
    const stranger = createPayingFetch();
    expect(await stateOf(stranger, 'state-agent')).toEqual({ found: false, agent_id: 'state-agent', owner: stranger.address.toLowerCase() });

    // No proof: no answer about anybody's agent, and how to make a proof.
    const anonymous = await fetch(stateUrl('state-agent'));
    expect(anonymous.status).toBe(403);
    const refusal = (await anonymous.json()) as JsonObject;
    expect(refusal).toMatchObject({ error: 'owner_proof_required', agent_id: 'state-agent' });
    expect(refusal.message).toContain('Read the governance state of agent state-agent at <signed_at>');
    expect(refusal).not.toHaveProperty('found');
    const withoutRequestId = ({ requestId: _requestId, ...rest }: JsonObject) => JSON.stringify(rest);
    const unheardOf = (await (await fetch(stateUrl('nobody-has-this'))).json()) as JsonObject;
    expect(withoutRequestId(unheardOf).replaceAll('nobody-has-this', 'state-agent')).toBe(withoutRequestId(refusal));
    expect((await fetch(`${service.url}/v1/governance/state/bad%20id`)).status).toBe(422);

    // A stale proof, a signature that recovers to no key: 403, nothing revealed.
    for (const proof of [await proofBy(pay, 'state-agent', Math.floor(Date.now() / 1000) - 3600), { signedAt: Math.floor(Date.now() / 1000), signature: `0x${'11'.repeat(65)}` }]) {
      const res = await fetch(stateUrl('state-agent', proof));
      expect(res.status).toBe(403);
      const body = (await res.json()) as JsonObject;
      expect(body).toMatchObject({ error: 'forbidden' });
      expect(body).not.toHaveProperty('owner');
      expect(body).not.toHaveProperty('openLeases');
    }
    // Inside the window, but signed before this process started: a process before it may have read with it.
    const beforeTheStart = await fetch(stateUrl('state-agent', await proofBy(pay, 'state-agent', Math.floor(Date.now() / 1000) - 200)));
    expect(beforeTheStart.status).toBe(403);
    expect(await beforeTheStart.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('it may have restarted since') });
    // A proof reads once: the same URL again (a copy from a proxy's log) reads nothing, while a fresh proof does.
    const proof = await proofBy(pay, 'state-agent');
    // HEAD changes nothing: it answers as GET would, and leaves the proof unused.
    const head = await fetch(stateUrl('state-agent', proof), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('private, no-store');
    expect((await fetch(stateUrl('state-agent', proof))).status).toBe(200);
    expect((await fetch(stateUrl('state-agent', proof), { method: 'HEAD' })).status).toBe(403);
    const replayed = await fetch(stateUrl('state-agent', proof));
    expect(replayed.status).toBe(403);
    const replayBody = (await replayed.json()) as JsonObject;
    expect(replayBody).toMatchObject({ error: 'forbidden', agent_id: 'state-agent' });
    expect(replayBody.message).toContain('was used already');
    expect(replayBody).not.toHaveProperty('openLeases');
    // The signature's other valid form (s' = n - s, the other recovery id) is the same proof.
    const malleated = { signedAt: proof.signedAt, signature: otherFormOf(proof.signature) };
    expect(malleated.signature).not.toBe(proof.signature);
    const malleatedAnswer = await fetch(stateUrl('state-agent', malleated));
    expect(malleatedAnswer.status).toBe(403);
    expect(((await malleatedAnswer.json()) as JsonObject).message).toContain('was used already');
    expect(await stateOf(pay, 'state-agent')).toMatchObject({ found: true, owner: pay.address.toLowerCase() });

    // A proof signed for another agent id recovers to another address: that address's (absent) agent.
    const misdirected = await proofBy(pay, 'other-agent');
    const misread = (await (await fetch(stateUrl('state-agent', misdirected))).json()) as JsonObject;
    expect(misread).toMatchObject({ found: false });
    expect(misread.owner).not.toBe(pay.address.toLowerCase());
  });

  it('an agent written under the old stream name keeps working for its owner: reserve, settle, state; for another payer it is absent', async () => {
    const now = Math.floor(Date.now() / 1000);
    const oldLease = await writeLegacyAgent(service.deps.store, pay.address, 'legacy-http-agent', { cap: '10', leaseAmount: '4', now });
    expect(oldLease).toMatchObject({ ruleset: { id: 'spend-governor', version: '1' } });
    expect(oldLease).not.toHaveProperty('owner');

    const more = await paid('/v1/governance/reserve', { agent_id: 'legacy-http-agent', amount: '5', purpose: 'more', ttl_seconds: 600 });
    expect(more.evidenceCore).toMatchObject({ outcome: 'RESERVED', owner: pay.address.toLowerCase(), reserved: '9', available: '1' });
    const settled = await paid('/v1/governance/settle', { lease_id: oldLease.lease_id, actual_amount: '3' });
    expect(settled.evidenceCore).toMatchObject({ outcome: 'SETTLED', reserved_amount: '4', released_amount: '1' });
    expect(await stateOf(pay, 'legacy-http-agent')).toMatchObject({ found: true, owner: pay.address.toLowerCase(), spent: '3', reserved: '5', available: '2' });

    expect(await stateOf(otherPayer, 'legacy-http-agent')).toEqual({ found: false, agent_id: 'legacy-http-agent', owner: otherPayer.address.toLowerCase() });
    const refusedSettle = await postTo(service, '/v1/governance/settle', { lease_id: oldLease.lease_id, actual_amount: '1' }, otherPayer);
    expect(refusedSettle.status).toBe(422);
    expect(await refusedSettle.json()).toMatchObject({ outcome: 'NOT-FOUND' });
    const theirs = await paid('/v1/governance/reserve', { agent_id: 'legacy-http-agent', amount: '1', purpose: 'own', ttl_seconds: 60, budget: { cap: '1', period: 60 } }, otherPayer);
    expect(theirs.evidenceCore).toMatchObject({ owner: otherPayer.address.toLowerCase(), available: '0' });
    expect(await stateOf(pay, 'legacy-http-agent')).toMatchObject({ reserved: '5', available: '2' });
  });

  it('answers 422 with the field before any quote', async () => {
    const res = await postTo(service, '/v1/governance/reserve', { agent_id: 'x', amount: 'lots', purpose: 'p', ttl_seconds: 60 });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ outcome: 'INVALID-INPUT', issues: [{ path: 'amount' }] });
    expect((await postTo(service, '/v1/governance/reserve', { agent_id: 'x', amount: '1', purpose: 'p', ttl_seconds: 60 })).status).toBe(402);
    expect(((await (await fetch(`${service.url}/v1/governance/standard`)).json()) as { version: string }).version).toBe('spend-governor/v2');
  });
});

describe('receipt check and reputation over HTTP', () => {
  it('checks a receipt and rates an endpoint from our own signed audits', async () => {
    const check = await paid('/v1/bureau/receipt-check', {
      artefact: 'receipt',
      signed: { format: 'eip712', payload: { version: 1, network: 'base', resourceUrl: 'https://api.example.com/x', payer: '0x1111111111111111111111111111111111111111', issuedAt: 1, transaction: '' }, signature: `0x${'11'.repeat(65)}` },
    });
    expect((check.evidenceCore as JsonObject).defects).toEqual(['ORC-NET-001', 'ORC-SIG-001']);
    expect(await recheck('/v1/bureau/verify', check)).toMatchObject({ valid: true });

    const corpus = (await (await fetch(`${service.url}/v1/bureau/corpus`)).json()) as { items: JsonObject[] };
    const observations = corpus.items.map((i) => ({ evidenceCore: i.evidenceCore, sha256: i.sha256, ed25519Sig: i.ed25519Sig }));
    const url = ((corpus.items.at(-1)!.evidenceCore as JsonObject).endpoint as JsonObject).url;
    const reputation = await paid('/v1/bureau/reputation', { endpoint: { url }, observations, min_observations: 1 });
    expect(reputation.evidenceCore).toMatchObject({ kind: 'bureau.reputation', outcome: 'GOOD', passRate: 1, observations: { accepted: 1, supplied: 2 } });
    expect(await recheck('/v1/bureau/verify', reputation)).toMatchObject({ valid: true });
    const thin = await paid('/v1/bureau/reputation', { endpoint: { url }, observations });
    expect(thin.evidenceCore).toMatchObject({ outcome: 'INSUFFICIENT-DATA' });
  });
});

describe('settling a lease that does not exist', () => {
  it('is quoted (which leases exist depends on the payer), then answered 422 NOT-FOUND before settlement: nothing is charged', async () => {
    const body = { lease_id: 'nobody:0123456789abcdef01234567', actual_amount: '1' };
    expect((await postTo(service, '/v1/governance/settle', body)).status).toBe(402);
    const res = await postTo(service, '/v1/governance/settle', body, pay);
    expect(res.status).toBe(422);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await res.json()).toMatchObject({ outcome: 'NOT-FOUND', issues: [{ path: 'lease_id' }] });
  });
});
