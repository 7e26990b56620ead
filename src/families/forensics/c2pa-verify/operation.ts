import { z } from 'zod';
import { c2paVerifyCommand } from './command.ts';
import { C2PA_BINDING_RULESET } from './engine.ts';
import { c2paVerifyInputSchema } from './input.ts';
import { attestationReadBack } from '../../../kernel/route-kit/read-back.ts';
import { hex64, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';

const unixSeconds = z.number().int();

const c2paEvidenceCoreSchema = z.object({
  kind: z.literal('c2pa.verification'),
  ruleset: rulesetMember(C2PA_BINDING_RULESET),
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
  evidence_source: z.literal('caller-supplied').optional().describe('The manifest report, binding and content hash are the caller\'s, compared by the service, not read from the asset (absent from verifications stored before 2026-11-27)'),
  verifiedAt: unixSeconds.describe('Unix seconds of the first verification of this pair'),
});

const c2paVerifyOperation = pricedOperation({
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
    outputBeside: true,
    command: c2paVerifyCommand,
  });

const c2paAttestationReadBack = attestationReadBack({ id: 'data.c2pa.attestation', path: '/v1/data/c2pa/attestation/:attestation_id', family: 'forensics', keyFamily: 'c2pa', streamPrefix: 'c2pa', eventType: 'C2paAttestationRecorded', summary: 'Read-back of a persisted C2PA attestation.' });

export const c2paVerify: Route[] = [c2paVerifyOperation, c2paAttestationReadBack];
