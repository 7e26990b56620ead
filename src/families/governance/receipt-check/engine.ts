import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { absent, checkResults, fail, outcomeOf, pass, scoreOf, type Verdict } from '../conformance-standard/verdicts.ts';
import { RECEIPT_CHECKS, RECEIPT_CHECK_RULESET } from '../conformance-standard/standard.ts';
import { jwsVerifies, parseCompactJws, recoverAddress, typedDataDigest, type JwsParts } from './offer-receipt-signatures.ts';
import { isJsonObject } from '../../../kernel/json.ts';

export interface ReceiptCheckInput {
  artefact: 'offer' | 'receipt';
  /** The signed offer or receipt exactly as the issuer sent it. */
  signed: JsonObject;
  /** For an offer: the PaymentRequirements it claims to sign; for a receipt: optional. */
  requirements?: JsonObject | undefined;
  /** The resource URL the artefact must name. */
  resourceUrl?: string | undefined;
  /** For a receipt: the offer payload it must agree with. */
  offer?: JsonObject | undefined;
  /** For a receipt: the payer it must name. */
  payer?: string | undefined;
  /** eip712: the expected signer address; jws: the raw public key in hex. */
  signer?: { address?: string | undefined; publicKey?: string | undefined } | undefined;
}

const REQUIRED = {
  offer: { version: 'number', resourceUrl: 'string', scheme: 'string', network: 'string', asset: 'string', payTo: 'string', amount: 'string' },
  receipt: { version: 'number', network: 'string', resourceUrl: 'string', payer: 'string', issuedAt: 'number' },
} as const;
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const ATOMIC = /^(0|[1-9]\d*)$/;

const sameText = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

interface Envelope {
  format?: 'jws' | 'eip712';
  payload?: JsonObject;
  defect?: string;
  jws?: JwsParts;
}

function readEnvelope(signed: JsonObject): Envelope {
  if (signed.format === 'eip712') {
    const payload = isJsonObject(signed.payload) ? signed.payload : undefined;
    if (!payload) return { format: 'eip712', defect: 'eip712 artefact without a payload object' };
    if (typeof signed.signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signed.signature)) return { format: 'eip712', payload, defect: 'signature is not a 65-byte 0x hex string' };
    return { format: 'eip712', payload };
  }
  if (signed.format === 'jws') {
    if (typeof signed.signature !== 'string') return { format: 'jws', defect: 'signature is not a compact JWS (header.payload.signature)' };
    const read = parseCompactJws(signed.signature);
    // A payload the record could not carry exactly is no readable payload: nothing else is judged on it.
    if (!read.ok) return { format: 'jws', defect: read.defect };
    const jws = read.jws;
    const payload = jws.payload as JsonObject;
    if (signed.payload !== undefined) return { format: 'jws', payload, jws, defect: 'a jws artefact must omit payload' };
    return { format: 'jws', payload, jws };
  }
  return { defect: `format is ${JSON.stringify(signed.format ?? null)}, not "jws" or "eip712"` };
}

function consistency(input: ReceiptCheckInput, payload: JsonObject): Verdict {
  const mismatches: string[] = [];
  const compare = (name: string, expected: JsonValue | undefined) => {
    if (expected !== undefined && !sameText(payload[name], expected)) mismatches.push(`${name} ${JSON.stringify(payload[name] ?? null)} != ${JSON.stringify(expected)}`);
  };
  let references = 0;
  if (input.resourceUrl !== undefined) { references++; compare('resourceUrl', input.resourceUrl); }
  if (input.requirements) {
    references++;
    const fields = input.artefact === 'offer' ? ['scheme', 'network', 'asset', 'payTo', 'amount'] : ['network'];
    for (const f of fields) compare(f, input.requirements[f]);
  }
  if (input.artefact === 'receipt' && input.offer) { references++; compare('network', input.offer.network); compare('resourceUrl', input.offer.resourceUrl); }
  if (input.artefact === 'receipt' && input.payer !== undefined) { references++; compare('payer', input.payer); }
  if (references === 0) return absent('no requirements, offer, resourceUrl or payer supplied to compare with');
  return mismatches.length ? fail(mismatches.join('; ')) : pass();
}

function signatureCheck(input: ReceiptCheckInput, env: Envelope, signed: JsonObject): { verdict: Verdict; signer?: string } {
  if (env.format === 'eip712' && env.payload && typeof signed.signature === 'string') {
    // Recovered with or without an expected signer: a signature that recovers to no address is
    // no signature, whoever the caller expected.
    const digest = typedDataDigest(input.artefact, env.payload);
    if (!digest) return { verdict: fail('the payload members do not fit the EIP-712 types') };
    const recovered = recoverAddress(digest, signed.signature);
    if (!recovered) return { verdict: fail('the signature does not recover to any address') };
    if (!input.signer?.address) return { verdict: absent(`no signer address supplied: the signature recovers to ${recovered}, not compared with an expected issuer`), signer: recovered };
    return { verdict: sameText(recovered, input.signer.address) ? pass() : fail(`recovers to ${recovered}, not ${input.signer.address.toLowerCase()}`), signer: recovered };
  }
  if (env.format === 'jws' && env.jws) {
    if (!input.signer?.publicKey) return { verdict: absent('no signer publicKey supplied') };
    const r = jwsVerifies(env.jws, input.signer.publicKey);
    return { verdict: r.ok ? pass() : fail(r.reason ?? 'does not verify') };
  }
  return { verdict: absent('no readable signature') };
}

/** Conformance of one signed offer or receipt of the x402 offer-and-receipt extension. */
export function checkOfferOrReceipt(input: ReceiptCheckInput, context: { now: number }): JsonObject {
  const env = readEnvelope(input.signed);
  const payload = env.payload;
  const v: Record<string, Verdict> = {};
  v['ORC-FMT-001'] = env.defect ? fail(env.defect) : pass();
  if (!payload) {
    for (const id of ['ORC-REQ-001', 'ORC-NET-001', 'ORC-AMT-001', 'ORC-CON-001', 'ORC-SIG-001']) v[id] = absent('no readable payload');
  } else {
    const missing = Object.entries(REQUIRED[input.artefact]).filter(([name, type]) => typeof payload[name] !== type).map(([name, type]) => `${name} (${type})`);
    v['ORC-REQ-001'] = missing.length ? fail(`missing or mistyped: ${missing.join(', ')}`) : pass();
    v['ORC-NET-001'] = typeof payload.network === 'string' && CAIP2.test(payload.network) ? pass() : fail(`network ${JSON.stringify(payload.network ?? null)} is not CAIP-2`);
    v['ORC-AMT-001'] = input.artefact === 'receipt' ? absent('a receipt carries no amount')
      : typeof payload.amount === 'string' && ATOMIC.test(payload.amount) ? pass() : fail(`amount ${JSON.stringify(payload.amount ?? null)} is not an atomic-unit string`);
    v['ORC-CON-001'] = consistency(input, payload);
  }
  const sig = payload ? signatureCheck(input, env, input.signed) : undefined;
  if (sig) v['ORC-SIG-001'] = sig.verdict;
  const checks = checkResults(RECEIPT_CHECKS, v);
  const score = scoreOf(checks);
  return {
    kind: 'bureau.receipt-check',
    ruleset: { ...RECEIPT_CHECK_RULESET },
    artefact: input.artefact,
    format: env.format ?? null,
    resourceUrl: typeof payload?.resourceUrl === 'string' ? payload.resourceUrl : null,
    payload: payload ?? null,
    ...(sig?.signer ? { recoveredSigner: sig.signer } : {}),
    checks: checks.map((c) => ({ ...c })),
    score: { ...score },
    defects: checks.filter((c) => c.status === 'fail').map((c) => c.id),
    outcome: outcomeOf(score),
    // The artefact, and the requirements, offer, payer and signer it is compared with, are the caller's.
    evidence_source: 'caller-supplied',
    checkedAt: context.now,
  };
}
