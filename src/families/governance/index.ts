import { z } from 'zod';
import { bureauAudit } from '../../commands/governance/bureau-audit.ts';
import { bureauReceiptCheck, bureauReputation } from '../../commands/governance/bureau-checks.ts';
import { governanceReserve, governanceSettle, readGovernorState } from '../../commands/governance/spend-governor.ts';
import { conformanceStandardDocument } from '../../engines/governance/conformance-standard.ts';
import { governorRulesDocument } from '../../engines/governance/governor-rules.ts';
import { rootFromInclusionProof } from '../../signing/rfc6962-merkle.ts';
import { governorStateView } from '../../engines/governance/spend-governor.ts';
import { corpusPage, defectCounts, latestAudit } from '../../projections/bureau-anchor.ts';
import { canonicalBytes, type JsonObject, type JsonValue } from '../../signing/rfc8785.ts';
import { check } from '../../signing/seal.ts';
import { hex64, jsonObject, signedResponse } from '../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, defineFamily, type Route, type ServiceDeps } from '../../kernel/operation.ts';
import { verifyResultSchema } from '../../kernel/route-kit/verify-route.ts';
import {
  amount,
  positiveAmount,
  agentId,
  leaseId,
  leaseRecord,
  settlementRecord,
  headers,
  auditInput,
  auditRecord,
  receiptCheckRecord,
  reputationRecord,
  integerText,
  anchorView,
  proofSchema,
  corpusItem,
} from '../../commands/governance/schemas.ts';

/** POST verify input: the record as an object (evidenceCore) or as JSON text (body). */
const recheckInput = z
  .object({ evidenceCore: jsonObject.optional(), body: z.string().optional(), sha256: z.string(), signature: z.string() })
  .refine((v) => v.evidenceCore !== undefined || v.body !== undefined, { message: 'is required (or body: the record as JSON text)', path: ['evidenceCore'] });

function recheck(kinds: readonly string[]) {
  return async (input: z.infer<typeof recheckInput>, deps: ServiceDeps) => {
    const { keyId } = deps.keyring.publicKey('governance');
    const answer = { family: 'governance', keyId };
    let record: JsonValue;
    try {
      record = input.evidenceCore ?? (JSON.parse(input.body!) as JsonValue);
    } catch {
      return { body: { valid: false, checks: { sha256: false, signature: false }, ...answer, reason: 'body is not valid JSON' } };
    }
    const result = check(deps.keyring, 'governance', record, input.sha256, input.signature);
    const kind = record !== null && typeof record === 'object' && !Array.isArray(record) ? record.kind : undefined;
    if (result.valid && !kinds.includes(String(kind))) {
      return { body: { ...result, valid: false, ...answer, reason: `a ${String(kind)} record is not re-checked here (expected ${kinds.join(', ')})` } };
    }
    return { body: { ...result, ...answer } };
  };
}

const routes: Route[] = [
  pricedOperation({
    id: 'bureau.audit',
    method: 'POST',
    path: '/v1/bureau/audit',
    family: 'governance',
    priceUsd: '0.25',
    summary: 'Full conformance audit of an endpoint.',
    description:
      'Audits an x402 endpoint against the bureau standard (GET /v1/bureau/standard) from a transcript the caller supplies (no live probe): the 402 challenge, optionally the paid answer and the issuer public key. Each check is pass, fail (with the evidence) or not-provided; the score counts only assessed checks. The sealed audit joins the public corpus (GET /v1/bureau/corpus). Header names are case-insensitive. The signed record is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: auditInput,
    example: {
      endpoint: { url: 'https://api.example.com/v1/data', method: 'GET' },
      challenge: { status: 402, headers: { 'payment-required': 'eyJ4NDAyVmVyc2lvbiI6Mn0=', 'cache-control': 'no-store' }, body: {} },
    },
    output: signedResponse(auditRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/bureau/verify',
    command: bureauAudit,
  }),
  pricedOperation({
    id: 'bureau.receipt-check',
    method: 'POST',
    path: '/v1/bureau/receipt-check',
    family: 'governance',
    priceUsd: '0.05',
    summary: "Conformance check of an issuer's receipt or offer.",
    description:
      'Checks a signed offer or receipt of the x402 offer-and-receipt extension (format jws or eip712) against the receipt-check standard (GET /v1/bureau/standard, receiptCheck): envelope, required payload members, CAIP-2 network, atomic amount, consistency with the supplied requirements/offer/resourceUrl/payer, and the signature when a signer is supplied (eip712: expected address; jws: raw EdDSA or ES256K public key in hex). The signed record is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: z
      .object({
        artefact: z.enum(['offer', 'receipt']),
        signed: jsonObject.describe('The signed offer or receipt exactly as issued: {format, payload?, signature, acceptIndex?}'),
        requirements: jsonObject.optional().describe('The PaymentRequirements the artefact must agree with'),
        resourceUrl: z.string().min(1).max(2048).optional(),
        offer: jsonObject.optional().describe('For a receipt: the offer payload it must agree with'),
        payer: z.string().min(1).max(200).optional(),
        signer: z.object({ address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address').optional(), publicKey: z.string().regex(/^[0-9a-fA-F]{64}$|^[0-9a-fA-F]{66}$|^[0-9a-fA-F]{130}$/, 'must be a raw public key in hex (32, 33 or 65 bytes)').optional() }).strict().optional(),
      })
      .strict(),
    example: {
      artefact: 'receipt',
      signed: { format: 'eip712', payload: { version: 1, network: 'eip155:8453', resourceUrl: 'https://api.example.com/v1/data', payer: '0x1111111111111111111111111111111111111111', issuedAt: 1767225600, transaction: '' }, signature: `0x${'00'.repeat(65)}` },
      payer: '0x1111111111111111111111111111111111111111',
    },
    output: signedResponse(receiptCheckRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/bureau/verify',
    command: bureauReceiptCheck,
  }),
  pricedOperation({
    id: 'bureau.reputation',
    method: 'POST',
    path: '/v1/bureau/reputation',
    family: 'governance',
    priceUsd: '0.10',
    summary: 'Reputation from signed observation history.',
    description:
      "An endpoint's reputation from supplied signed observations (bureau audits and receipt checks, each {evidenceCore, sha256, ed25519Sig, publicKey?}): ours are verified with the governance key, others' with the supplied key; observations that do not verify, concern another endpoint or repeat one are set aside with the reason. Pass rate, trend (earlier half vs later half), open defects; INSUFFICIENT-DATA under min_observations (default 3). The signed record is under evidenceCore (governance key).",
    inputFrom: 'json',
    input: z
      .object({
        endpoint: z.object({ url: z.string().min(1).max(2048) }).strict(),
        observations: z.array(z.object({ evidenceCore: jsonObject, sha256: z.string(), ed25519Sig: z.string(), publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a 32-byte Ed25519 public key in hex').optional() }).strict()).max(500),
        min_observations: z.number().int().min(1).max(500).optional(),
      })
      .strict(),
    example: { endpoint: { url: 'https://api.example.com/v1/data' }, observations: [], min_observations: 3 },
    output: signedResponse(reputationRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/bureau/verify',
    command: bureauReputation,
  }),
  pricedOperation({
    id: 'governance.reserve',
    method: 'POST',
    path: '/v1/governance/reserve',
    family: 'governance',
    priceUsd: '0.02',
    summary: 'Atomic reserved lease (spend governor).',
    description:
      "Reserves `amount` of an agent's budget for ttl_seconds, atomically against the cap of the current period (rules: GET /v1/governance/standard). The first reserve of an agent opens its budget and makes the payer its owner; other payers are refused 403 before settlement, free. BUDGET-EXCEEDED when it does not fit. The signed lease is under evidenceCore (governance key).",
    inputFrom: 'json',
    input: z
      .object({
        agent_id: agentId,
        amount: positiveAmount,
        purpose: z.string().min(1).max(200),
        ttl_seconds: z.number().int().min(1).max(2_592_000),
        budget: z.object({ cap: positiveAmount, period: z.number().int().min(60).max(31_622_400) }).strict().optional(),
      })
      .strict(),
    example: { agent_id: 'research-agent-7', amount: '1.25', purpose: 'search API calls', ttl_seconds: 600, budget: { cap: '20', period: 86_400 } },
    output: signedResponse(leaseRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/governance/verify',
    command: governanceReserve,
  }),
  pricedOperation({
    id: 'governance.settle',
    method: 'POST',
    path: '/v1/governance/settle',
    family: 'governance',
    priceUsd: '0.02',
    summary: 'Settles a lease; idempotent.',
    description:
      'Settles an open lease at actual_amount <= the reserved amount and releases the rest. Settling a settled lease again with the same amount returns the original receipt unchanged and counts once. Owner only (403 before settlement otherwise). Expired leases are released and cannot be settled. The signed receipt is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: z.object({ lease_id: leaseId, actual_amount: amount }).strict(),
    example: { lease_id: 'research-agent-7:0123456789abcdef01234567', actual_amount: '0.9' },
    output: signedResponse(settlementRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/governance/verify',
    command: governanceSettle,
  }),

  freeRoute({
    id: 'bureau.anchor.verify',
    method: 'POST',
    path: '/v1/bureau/anchor/verify',
    family: 'governance',
    summary: 'Re-checks a corpus anchor and an inclusion proof.',
    description:
      'Recomputes the RFC 6962 root from one audit record (leaf = its RFC 8785 canonical bytes) and its inclusion proof {leafIndex, treeSize, auditPath}, and compares it with the anchor {treeSize, rootHash}; with sha256 and signature also checks the anchor signature (governance key). Answers valid=false with the reason on any mismatch.',
    inputFrom: 'json',
    input: z
      .object({
        leaf: jsonObject.describe('The audit record (evidenceCore) of one corpus item'),
        proof: proofSchema,
        anchor: z.looseObject({ treeSize: z.number().int().min(1), rootHash: hex64 }).describe('The anchor evidenceCore, or at least {treeSize, rootHash}'),
        sha256: z.string().optional(),
        signature: z.string().optional(),
      })
      .strict(),
    output: z.object({ valid: z.boolean(), checks: z.object({ inclusion: z.boolean(), anchorSignature: z.boolean().nullable() }), computedRoot: z.string().nullable(), family: z.string(), keyId: z.string(), reason: z.string().optional() }),
    async handle(input, deps) {
      const { keyId } = deps.keyring.publicKey('governance');
      const computedRoot = rootFromInclusionProof(canonicalBytes(input.leaf), input.proof) ?? null;
      const sizeOk = input.proof.treeSize === input.anchor.treeSize;
      const inclusion = sizeOk && computedRoot === input.anchor.rootHash;
      const signed = input.sha256 !== undefined && input.signature !== undefined;
      const anchorSignature = signed ? check(deps.keyring, 'governance', input.anchor, input.sha256!, input.signature!).valid : null;
      const valid = inclusion && anchorSignature !== false;
      const reason = !sizeOk ? 'the proof is for another tree size than the anchor'
        : computedRoot === null ? 'the proof does not fit a tree of that size'
          : !inclusion ? 'the root computed from the leaf and the proof differs from the anchor root'
            : anchorSignature === false ? 'the anchor signature does not verify against the governance public key' : undefined;
      return { body: { valid, checks: { inclusion, anchorSignature }, computedRoot, family: 'governance', keyId, ...(reason ? { reason } : {}) } };
    },
  }),
  freeRoute({
    id: 'bureau.verify',
    method: 'POST',
    path: '/v1/bureau/verify',
    family: 'governance',
    summary: 'Re-checks a bureau result.',
    description:
      'Re-checks an audit, receipt check, reputation or anchor record: send the evidenceCore as an object (or body: the same as JSON text), sha256 and signature (the ed25519Sig). Re-canonicalises (RFC 8785), recomputes SHA-256 and checks the Ed25519 signature with the governance key. Any change gives valid=false.',
    inputFrom: 'query-or-json',
    input: recheckInput,
    output: verifyResultSchema,
    handle: recheck(['bureau.audit', 'bureau.receipt-check', 'bureau.reputation', 'bureau.anchor']),
  }),
  freeRoute({
    id: 'governance.verify',
    method: 'POST',
    path: '/v1/governance/verify',
    family: 'governance',
    summary: 'Re-checks a lease or settle receipt.',
    description:
      'Re-checks a lease (reserve) or settlement record: send the evidenceCore as an object (or body: the same as JSON text), sha256 and signature. Re-canonicalises (RFC 8785), recomputes SHA-256 and checks the Ed25519 signature with the governance key. Any change gives valid=false.',
    inputFrom: 'query-or-json',
    input: recheckInput,
    output: verifyResultSchema,
    handle: recheck(['governance.lease', 'governance.settlement']),
  }),
  freeRoute({
    id: 'governance.state',
    method: 'GET',
    path: '/v1/governance/state/:agent_id',
    family: 'governance',
    summary: "An agent's budget, reserved, spent and open leases.",
    description: "The agent's budget and its current period: reserved (open, unexpired leases), spent (settled), available, and the open leases. Read from the agent's own stream, so it reflects every completed reserve and settle. Unknown agent: found=false.",
    inputFrom: 'path',
    input: z.object({ agent_id: agentId }),
    output: z.object({ found: z.boolean(), agent_id: z.string() }).loose(),
    async handle(input, deps) {
      const state = await readGovernorState(deps.store, input.agent_id);
      // The route reads the clock; the fold it feeds stays pure.
      const view = governorStateView(state, Math.floor(Date.now() / 1000));
      const body: JsonObject = view ? { found: true, ...view } : { found: false, agent_id: input.agent_id };
      return { body };
    },
  }),
  freeRoute({
    id: 'governance.standard',
    method: 'GET',
    path: '/v1/governance/standard',
    family: 'governance',
    summary: "The spend governor's rules.",
    description: 'The versioned rules the spend governor applies: ownership, budget periods, atomic reserve, expiry, settlement.',
    output: z.looseObject({ version: z.string() }),
    async handle() {
      return { body: governorRulesDocument() as unknown as JsonObject };
    },
  }),
  freeRoute({
    id: 'bureau.standard',
    method: 'GET',
    path: '/v1/bureau/standard',
    family: 'governance',
    summary: 'The versioned x402 conformance standard.',
    description: 'Every check of the bureau: id, what it requires, where the x402 v2 specification requires it, severity; and the receipt-check standard.',
    output: z.looseObject({ version: z.string(), checks: z.array(z.looseObject({ id: z.string() })) }),
    async handle() {
      return { body: conformanceStandardDocument() as unknown as JsonObject };
    },
  }),
  freeRoute({
    id: 'bureau.corpus',
    method: 'GET',
    path: '/v1/bureau/corpus',
    family: 'governance',
    summary: 'The audit corpus, paged, newest first.',
    description: 'The sealed audits, newest first (query page, per_page <= 100), each with its RFC 6962 inclusion proof against the signed anchor {treeSize, rootHash} of the whole corpus.',
    inputFrom: 'query',
    input: z.object({ page: integerText('1', 1_000_000), per_page: integerText('20', 100) }),
    output: z.object({ total: z.number().int(), page: z.number().int(), perPage: z.number().int(), anchor: anchorView, items: z.array(corpusItem) }),
    async handle(input, deps) {
      return { body: (await corpusPage(deps.store, deps.keyring, deps.baseUrl, input.page, input.per_page)) as unknown as JsonObject };
    },
  }),
  freeRoute({
    id: 'bureau.corpus.latest',
    method: 'GET',
    path: '/v1/bureau/corpus/latest',
    family: 'governance',
    summary: 'The newest audit of the corpus.',
    description: 'The newest sealed audit with its inclusion proof and the signed anchor; found=false while the corpus is empty.',
    output: z.object({ found: z.boolean(), item: corpusItem.optional(), anchor: anchorView.optional() }),
    async handle(_input, deps) {
      return { body: (await latestAudit(deps.store, deps.keyring, deps.baseUrl)) as unknown as JsonObject };
    },
  }),
  freeRoute({
    id: 'bureau.defects',
    method: 'GET',
    path: '/v1/bureau/defects',
    family: 'governance',
    summary: 'Defect counts by check id.',
    description: 'How many audits of the corpus failed each check, by check id (checks never failed are absent).',
    output: z.object({ audits: z.number().int(), defects: z.record(z.string(), z.number().int()) }),
    async handle(_input, deps) {
      return { body: await defectCounts(deps.store) };
    },
  }),
];

export const governanceFamily = defineFamily('governance', routes);
