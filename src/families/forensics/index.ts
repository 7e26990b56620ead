import { z } from 'zod';
import { c2paVerify } from '../../commands/forensics/c2pa-verify.ts';
import { evidenceIngest } from '../../commands/forensics/evidence-ingest.ts';
import { evidenceQuery } from '../../commands/forensics/evidence-query.ts';
import { signedSnapshot } from '../../commands/forensics/signed-snapshot.ts';
import { C2PA_BINDING_RULES, c2paVerifyInputSchema } from '../../engines/forensics/c2pa-binding.ts';
import { EVIDENCE_ENTRY_RULES, evidenceIngestInputSchema } from '../../engines/forensics/evidence-entry.ts';
import { EVIDENCE_RECEIPT_RULES, MERKLE_SCHEME, evidenceQueryInputSchema } from '../../engines/forensics/evidence-receipt.ts';
import { FRESHNESS_TIERS, SNAPSHOT_USABILITY_RULES, publishedSnapshotRules, signedSnapshotInputSchema } from '../../engines/forensics/signed-snapshot.ts';
import { attestationReadBack } from '../../kernel/route-kit/read-back.ts';
import { hex64, signedResponse } from '../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, defineFamily, type Route } from '../../kernel/operation.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../kernel/route-kit/verify-route.ts';

const unixSeconds = z.number().int();
const jsonRecord = z.record(z.string(), z.json());

const sealedEvidenceSchema = z.object({
  kind: z.literal('evidence.entry'),
  rules: z.literal(EVIDENCE_ENTRY_RULES),
  entryId: hex64.describe('SHA-256 of the canonical entry content and action hash: stable per entry'),
  entry: z.object({
    action: z.string(),
    actor: z.string().optional(),
    subject: z.string().optional(),
    occurredAt: unixSeconds.optional(),
    payload: jsonRecord.optional(),
  }),
  action_hash: hex64,
  action_hash_source: z.enum(['derived', 'supplied-matches-derivation', 'supplied']),
  sealedAt: unixSeconds.describe('Unix seconds of the first seal of this entry'),
});

const receiptSchema = z.object({
  kind: z.literal('evidence.receipt'),
  rules: z.literal(EVIDENCE_RECEIPT_RULES),
  merkle_scheme: z.literal(MERKLE_SCHEME),
  outcome: z.enum(['BOUND', 'PARTIAL', 'NOT-FOUND']),
  requested_count: z.number().int(),
  found_count: z.number().int(),
  entries: z.array(z.object({ entryId: hex64, sha256: hex64 })).describe('Found entries in entryId order, each with the SHA-256 of its sealed record'),
  not_found: z.array(hex64).describe('Requested ids with no sealed entry (NOT-FOUND)'),
  merkle_root: hex64.nullable(),
});

const c2paEvidenceCoreSchema = z.object({
  kind: z.literal('c2pa.verification'),
  rules: z.literal(C2PA_BINDING_RULES),
  attestation_id: hex64,
  content_hash: z.object({ alg: z.enum(['sha256', 'sha384', 'sha512']), hex: z.string(), supplied_encoding: z.enum(['hex', 'base64']) }),
  outcome: z.enum([
    'BINDING-MATCH',
    'CLAIM-INCOMPLETE',
    'BINDING-MISMATCH',
    'ALGORITHM-MISMATCH',
    'UNSUPPORTED-ALGORITHM',
    'UNSUPPORTED-BINDING',
    'MALFORMED-BINDING',
    'BINDING-CONFLICT',
    'NO-HARD-BINDING',
    'NO-ACTIVE-MANIFEST',
  ]),
  detail: z.string(),
  missing: z.array(z.string()),
  binding: z
    .object({ label: z.string(), source: z.enum(['manifest_store', 'hard_binding']), alg: z.string().nullable(), hash_hex: z.string().nullable(), exclusions: z.json() })
    .nullable(),
  manifest: z.object({ label: z.string().nullable(), claim_generator: z.string().nullable(), assertions: z.array(z.string()), manifest_store_sha256: hex64 }).nullable(),
  checks: z.object({
    algorithm_supported: z.boolean().nullable(),
    algorithm_matches: z.boolean().nullable(),
    hash_matches: z.boolean().nullable(),
    claim_generator: z.enum(['LISTED', 'MISSING', 'NOT-PROVIDED']),
    assertions: z.enum(['LISTED', 'MISSING', 'NOT-PROVIDED']),
  }),
  signature: z.object({
    claim_signature: z.literal('NOT-VERIFIED'),
    certificate_chain: z.literal('NOT-VERIFIED'),
    reason: z.string(),
    reported_by_manifest: z.record(z.string(), z.string()),
  }),
  verifiedAt: unixSeconds.describe('Unix seconds of the first verification of this pair'),
});

const rejectionSchema = z.array(z.object({ index: z.number().int(), reason: z.string() }));

const snapshotSchema = z.object({
  kind: z.literal('data.signed-snapshot'),
  rules: z.object({ usability: z.literal(SNAPSHOT_USABILITY_RULES), freshness: z.literal(FRESHNESS_TIERS.version) }),
  series: z.string(),
  outcome: z.enum(['SEALED', 'INSUFFICIENT-DATA']),
  missing: z.array(z.enum(['rows', 'citations', 'fetchedAt'])),
  freshness: z.object({ tier: z.enum(['LIVE', 'FRESH', 'RECENT', 'STALE', 'ARCHIVAL', 'FUTURE-DATED', 'NOT-PROVIDED']), fetchedAt: unixSeconds.nullable(), age_seconds: z.number().int().nullable() }),
  rows: z.array(z.json()),
  rows_count: z.number().int(),
  rows_rejected: rejectionSchema,
  citations: z.array(z.json()),
  citations_count: z.number().int(),
  citations_rejected: rejectionSchema,
  stampedAt: unixSeconds,
});

// The entryId of the evidence.ingest example, so the two examples chain.
const EXAMPLE_ENTRY_ID = '207ecbf8461c7681c1c39ca063baf21072ac91953a5daa23de3b98623d497009';

const routes: Route[] = [
  pricedOperation({
    id: 'data.c2pa.verify',
    method: 'POST',
    path: '/v1/data/c2pa/verify',
    family: 'forensics',
    priceUsd: '0.25',
    summary: 'Verifies a provenance claim against a caller-supplied content hash; persisted under attestation_id.',
    description:
      'Input: the C2PA manifest store as c2patool prints it (summary or --detailed), and/or its hard-binding assertion (c2pa.hash.data, or c2pa.hash.bmff with a whole-file hash), plus the content hash (sha256/sha384/sha512, hex or base64) computed over the asset with the binding exclusions removed. Checks that the binding algorithm is supported and equals the supplied one, that the binding hash equals the supplied hash, and that the claim lists a claim generator and assertions. The claim signature and certificate chain are reported NOT-VERIFIED (offline). attestation_id is the SHA-256 of the canonical input (content-derived): the same pair returns the first attestation again. Read it back free at /v1/data/c2pa/attestation/{attestation_id}.',
    inputFrom: 'json',
    input: c2paVerifyInputSchema,
    example: {
      manifest_store: {
        active_manifest: 'urn:uuid:8c3f5d2e-1a7b-4c9e-9f60-2b1d3e4f5a6b',
        manifests: {
          'urn:uuid:8c3f5d2e-1a7b-4c9e-9f60-2b1d3e4f5a6b': {
            claim_generator: 'ExampleCam/1.0 c2pa-rs/0.49.0',
            title: 'photo.jpg',
            format: 'image/jpeg',
            assertions: [{ label: 'c2pa.actions', data: { actions: [{ action: 'c2pa.created' }] } }],
            signature_info: { alg: 'Es256', issuer: 'Example Signing CA' },
          },
        },
      },
      hard_binding: {
        label: 'c2pa.hash.data',
        data: { alg: 'sha256', hash: 'XXPXPLv+bCkJlGu+57y5zUZXyWyMDbr27q7quYAN8Wo=', exclusions: [{ start: 20, length: 51179 }], name: 'jumbf manifest' },
      },
      content_hash: { alg: 'sha256', value: '5d73d73cbbfe6c2909946bbee7bcb9cd4657c96c8c0dbaf6eeaeeab9800df16a' },
    },
    output: signedResponse(c2paEvidenceCoreSchema, 'evidenceCore'),
    keyFamily: 'c2pa',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/data/c2pa/attestation/{attestation_id}',
    command: c2paVerify,
  }),
  pricedOperation({
    id: 'data.signed-snapshot',
    method: 'POST',
    path: '/v1/data/signed-snapshot',
    family: 'forensics',
    priceUsd: '0.30',
    summary: 'Seals series rows and source citations into one signed snapshot with a freshness tier.',
    description: `Usable rows (objects with at least one numeric member) and usable citations (http(s) URL or DOI) are sealed with the freshness tier and age of fetchedAt relative to stampedAt (${FRESHNESS_TIERS.version}, published at /v1/data/freshness-tiers). No fetchedAt: freshness NOT-PROVIDED. No usable row or no usable citation: outcome INSUFFICIENT-DATA. Unusable items are listed by index with the reason.`,
    inputFrom: 'json',
    input: signedSnapshotInputSchema,
    example: {
      series: 'ECB EUR/USD reference rate, daily',
      rows: [
        { date: '2025-12-30', value: 1.0412 },
        { date: '2025-12-31', value: 1.0389 },
      ],
      citations: [{ url: 'https://data.ecb.europa.eu/data/datasets/EXR', title: 'ECB Data Portal: exchange rates' }],
      fetchedAt: 1_767_225_000,
    },
    output: signedResponse(snapshotSchema, 'evidenceCore'),
    keyFamily: 'data',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/data/verify',
    command: signedSnapshot,
  }),
  pricedOperation({
    id: 'evidence.ingest',
    method: 'POST',
    path: '/v1/evidence/ingest',
    family: 'forensics',
    priceUsd: '0.20',
    summary: 'Seals one evidence record; returns entryId.',
    description:
      'The entry {action, actor?, subject?, occurredAt?, payload?} is carried verbatim. action_hash, when omitted, is the SHA-256 of the canonical entry. entryId is the SHA-256 of the canonical entry and action hash, so it is stable per entry: ingesting the same content again returns the first sealed record (same sealedAt, digest and signature) and stores nothing new.',
    inputFrom: 'json',
    input: evidenceIngestInputSchema,
    example: { action: 'model.deployed', actor: 'did:example:ops-team', subject: 'example-7b@2025-12-31', payload: { environment: 'production', approvals: 2 } },
    output: signedResponse(sealedEvidenceSchema, 'sealed'),
    keyFamily: 'evidence',
    signedMember: 'sealed',
    verifyPath: '/v1/evidence/verify',
    command: evidenceIngest,
  }),
  pricedOperation({
    id: 'evidence.query',
    method: 'POST',
    path: '/v1/evidence/query',
    family: 'forensics',
    priceUsd: '0.15',
    summary: 'Binds a set of sealed entries into one signed receipt.',
    description:
      'The receipt holds the sorted, deduplicated entry ids with the SHA-256 of each sealed record, a Merkle root over them, and the ids not found (NOT-FOUND). It carries no timestamp: the same set, in any order and with duplicates, gives byte-identical receipts, digests and signatures.',
    inputFrom: 'json',
    input: evidenceQueryInputSchema,
    example: { entryIds: [EXAMPLE_ENTRY_ID] },
    output: signedResponse(receiptSchema, 'receipt'),
    keyFamily: 'evidence',
    signedMember: 'receipt',
    verifyPath: '/v1/evidence/verify',
    command: evidenceQuery,
  }),

  verifyRoute({ id: 'evidence.verify', method: 'GET', path: '/v1/evidence/verify', family: 'forensics', keyFamily: 'evidence', summary: 'Re-checks an evidence ingest (sealed) or query (receipt) record.', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'data.verify', method: 'GET', path: '/v1/data/verify', family: 'forensics', keyFamily: 'data', summary: 'Re-checks a signed data snapshot (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  attestationReadBack({ id: 'data.c2pa.attestation', path: '/v1/data/c2pa/attestation/:attestation_id', family: 'forensics', keyFamily: 'c2pa', streamPrefix: 'c2pa', eventType: 'C2paAttestationRecorded', summary: 'Read-back of a persisted C2PA attestation.' }),
  freeRoute({
    id: 'data.freshness-tiers',
    method: 'GET',
    path: '/v1/data/freshness-tiers',
    family: 'forensics',
    summary: 'The versioned freshness tier table and usability rules of signed snapshots.',
    description: 'Publishes what each freshness tier of /v1/data/signed-snapshot meant when it was signed, and which rows and citations count as usable. Versioned: a signed snapshot names the versions it used.',
    output: z.object({ freshness: jsonRecord, usability: jsonRecord }),
    async handle() {
      return { body: publishedSnapshotRules() };
    },
  }),
];

export const forensicsFamily = defineFamily('forensics', routes);
