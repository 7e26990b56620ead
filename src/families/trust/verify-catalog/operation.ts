import { z } from 'zod';
import { VERIFY_CATALOG_KIND, VERIFY_CATALOG_RULESET } from './engine.ts';
import { jsonObject, rulesetMember, signedResponse, hex64 } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import { verifyCatalogRegisterCommand } from './command.ts';
import { at, shortText } from '../shared/schemas.ts';

export const catalogRegisterInput = z
  .object({
    claim: jsonObject.describe('The signed output (canonical record) of any service'),
    claim_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters').optional(),
    signature: shortText(1024).optional().describe('Ed25519 (64 bytes) or EIP-191 (65 bytes), hex or base64'),
    public_key: shortText(512).optional().describe('Ed25519 key (hex, base64, did:key) or EVM address'),
    source_url: shortText(2048).optional().describe('Where the output is published, as the caller states it (not fetched); an https URL written out in full counts toward the trust index'),
  })
  .strict();

export const catalogEntrySchema = z.object({
  kind: z.literal(VERIFY_CATALOG_KIND),
  entryId: z.string(),
  ruleset: rulesetMember(VERIFY_CATALOG_RULESET),
  claim: z.record(z.string(), z.json()),
  claim_sha256: hex64,
  supplied_claim_sha256: z.string().optional(),
  integrity: z.enum(['VERIFIED', 'MISMATCH', 'NOT-PROVIDED']),
  signature: z.object({
    status: z.enum(['VERIFIED', 'FAILED', 'WELL-FORMED', 'MALFORMED', 'NOT-PROVIDED']),
    detail: z.string(),
    value: z.string().optional(),
    public_key: z.string().optional(),
  }),
  source: z.object({ status: z.enum(['HTTPS-URL-SUPPLIED', 'NOT-HTTPS', 'NOT-PROVIDED']), url: z.string().optional() }),
  service_host: z.string(),
  service_references: z.number().int(),
  evidence_source: z.literal('caller-supplied').optional(),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })).optional(),
  trust_index: z.number().min(0).max(1).nullable().describe('null (deferred) unless integrity and signature are verified and an https source URL is supplied'),
  deferred_reasons: z.array(z.string()),
  registeredAt: at('registration time'),
});

const verifyCatalogRegisterOperation = pricedOperation({
    id: 'verify-catalog.register',
    method: 'POST',
    path: '/v1/verify-catalog/register',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Registers a signed output of any service in a public catalog.',
    description: `Recomputes SHA-256 over the RFC 8785 form of claim and checks claim_sha256; assesses the signature (well-formed; verified when public_key is supplied); counts references to this service's host in the claim. Ruleset ${VERIFY_CATALOG_RULESET.id}/${VERIFY_CATALOG_RULESET.version}: a trust index in 0..1 only when integrity and signature are verified and source_url is an https URL written out in full (a host; no white space, control or invisible character); otherwise null with the reasons. The entry is persisted in the stream verify-catalog-<entryId>.`,
    inputFrom: 'json',
    input: catalogRegisterInput,
    example: { claim: { kind: 'model-eval', attestedAt: 1767225600, claim: { score: 0.81 } }, source_url: 'https://example.org/attestations/1' },
    output: signedResponse(catalogEntrySchema, 'evidenceCore'),
    keyFamily: 'verify-catalog',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/verify-catalog/recheck',
    command: verifyCatalogRegisterCommand,
  });

const verifyCatalogRecheck = verifyRoute({
    id: 'verify-catalog.recheck',
    method: 'POST',
    path: '/v1/verify-catalog/recheck',
    family: 'trust',
    keyFamily: 'verify-catalog',
    summary: 'Re-checks a verify-catalog registration (body = the evidenceCore as JSON).',
    params: bodyVerifyParams,
    rebuild: rebuildFromBody,
  });

export const verifyCatalog: Route[] = [verifyCatalogRegisterOperation, verifyCatalogRecheck];
