import { z } from 'zod';
import { rootFromInclusionProof } from '../../../signing/rfc6962-merkle.ts';
import { corpusPage, defectCounts, latestAudit } from './anchor.ts';
import { canonicalBytes } from '../../../signing/rfc8785.ts';
import { check } from '../../../signing/seal.ts';
import { hex64, jsonObject, signatureEnvelope } from '../../../kernel/route-kit/schemas.ts';
import { freeRoute, type Route } from '../../../kernel/operation.ts';
import { auditRecord } from '../shared/schemas.ts';

export const integerText = (fallback: string, max: number) =>
  z.string().default(fallback).pipe(z.string().regex(/^\d{1,6}$/, 'must be a positive integer')).transform(Number).pipe(z.number().int().min(1).max(max));

export const anchorView = z.object({ evidenceCore: z.object({ kind: z.literal('bureau.anchor'), tree: z.string(), treeSize: z.number().int(), rootHash: hex64 }), ...signatureEnvelope });

export const proofSchema = z.object({ leafIndex: z.number().int().min(0), treeSize: z.number().int().min(1), auditPath: z.array(z.string()).max(64) }).strict();

/** The corpus keeps every audit as it was sealed: those sealed before the ruleset member name their standard instead. */
const sealedAudit = auditRecord.extend({
  ruleset: auditRecord.shape.ruleset.optional(),
  standard: z.string().optional().describe('Audits sealed before the ruleset member: the standard version, e.g. "x402-conformance/v1"'),
});

export const corpusItem = z.object({ leafIndex: z.number().int(), auditId: z.string(), evidenceCore: sealedAudit, sha256: hex64, ed25519Sig: z.string(), keyId: z.string(), inclusionProof: proofSchema });

const anchorVerify = freeRoute({
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
  });

const corpus = freeRoute({
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
      return { body: await corpusPage(deps.store, deps.keyring, deps.baseUrl, input.page, input.per_page) };
    },
  });

const corpusLatest = freeRoute({
    id: 'bureau.corpus.latest',
    method: 'GET',
    path: '/v1/bureau/corpus/latest',
    family: 'governance',
    summary: 'The newest audit of the corpus.',
    description: 'The newest sealed audit with its inclusion proof and the signed anchor; found=false while the corpus is empty.',
    output: z.object({ found: z.boolean(), item: corpusItem.optional(), anchor: anchorView.optional() }),
    async handle(_input, deps) {
      return { body: await latestAudit(deps.store, deps.keyring, deps.baseUrl) };
    },
  });

const defects = freeRoute({
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
  });

export const bureauCorpus: Route[] = [anchorVerify, corpus, corpusLatest, defects];
