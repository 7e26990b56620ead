import { z } from 'zod';
import { identityRecord } from '../../../kernel/route-kit/records.ts';
import { signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { proveControl, type ControlProofInput } from './engine.ts';
import { at, shortText, urlVerifiableObject, requiringFields } from '../shared/schemas.ts';

export const controlProofInput = requiringFields(
  ['identifier', 'control_method'],
  z
    .object({
      identifier: shortText(512).describe('EVM address, did:pkh:eip155, did:key (Ed25519), raw Ed25519 key (hex/base64), did:web, DNS name or URL'),
      control_method: token.describe('How control is shown, e.g. "eip191-signature", "ed25519-signature", "dns-txt", "did-web"'),
      control_evidence: urlVerifiableObject
        .optional()
        .describe('For a checkable identifier: {message, signature}. Anything else is carried verbatim as documented, not verified'),
      claimer: shortText(512).optional(),
    })
    .strict(),
);

export const controlProofRecordSchema = z.object({
  identifier: z.string(),
  control_method: z.string(),
  control_evidence: z.record(z.string(), z.json()).optional().describe('Omitted when empty (the verify default {})'),
  claimer: z.string().optional().describe('Omitted when empty (the verify default)'),
  verdict: z.enum(['CONTROL-VERIFIED', 'CONTROL-DOCUMENTED', 'CONTROL-FAILED', 'NOT-PROVIDED']),
  claimsAt: at('claim time'),
});

// ---- readiness.attest

const identityControlProofOperation = pricedOperation({
    id: 'identity.control-proof',
    method: 'POST',
    path: '/v1/identity/control-proof',
    family: 'trust',
    priceUsd: '0.20',
    summary: 'Signed proof that an entity documents control of an identifier (key, DID or wallet).',
    description:
      'Record {identifier, control_method, control_evidence?, claimer?, verdict, claimsAt}. CONTROL-VERIFIED only when control_evidence {message, signature} verifies for the identifier (EIP-191 for an EVM address or did:pkh:eip155, Ed25519 for a did:key or raw key); CONTROL-FAILED when it does not; CONTROL-DOCUMENTED (carried verbatim, not verified) when it cannot be checked offline; NOT-PROVIDED without evidence. A missing identifier or control_method is INVALID-INPUT, answered 422 before any payment.',
    inputFrom: 'json',
    input: controlProofInput,
    example: {
      identifier: 'did:web:agents.example.org',
      control_method: 'did-web',
      control_evidence: { didDocumentUrl: 'https://agents.example.org/.well-known/did.json' },
      claimer: 'agents.example.org operations',
    },
    output: signedResponse(controlProofRecordSchema, null),
    keyFamily: 'identity',
    signedMember: null,
    verifyPath: '/v1/identity/control-proof/verify',
    command: fromEngine((input: ControlProofInput, now) => proveControl(input, now).record),
  });

const identityControlProofVerifyRoutes = verifyRouteOnGetAndPost({
    id: 'identity.control-proof.verify',
    path: '/v1/identity/control-proof/verify',
    family: 'trust',
    keyFamily: 'identity',
    summary: 'Re-checks an identity control-proof {identifier, control_method, control_evidence?, claimer?, verdict, claimsAt}.',
    params: {
      identifier: param.optionalText(),
      control_method: param.optionalText(),
      claimer: param.optionalText(),
      verdict: param.optionalText(),
      control_evidence: param.optionalJson('{}'),
      claims_at: param.integer(),
    },
    rebuild: (p) =>
      identityRecord({
        identifier: p.identifier,
        control_method: p.control_method,
        control_evidence: parseJsonParam('control_evidence', p.control_evidence),
        claimer: p.claimer,
        verdict: p.verdict,
        claimsAt: parseIntegerParam(p.claims_at),
      }),
  });

export const identityControlProof: Route[] = [identityControlProofOperation, ...identityControlProofVerifyRoutes];
