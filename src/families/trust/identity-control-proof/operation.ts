import { z } from 'zod';
import { identityRecord } from '../../../kernel/route-kit/records.ts';
import { signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import { proveControl, type ControlProofInput } from './engine.ts';
import { controlProofTemplate } from './control-message.ts';
import { staleControlProofRefusal } from './stale-proof-refusal.ts';
import { at, shortText, urlVerifiableObject, requiringFields } from '../shared/schemas.ts';

export const controlProofInput = requiringFields(
  ['identifier', 'control_method'],
  z
    .object({
      identifier: shortText(512).describe('EVM address, did:pkh:eip155, did:key (Ed25519), raw Ed25519 key (hex/base64), did:web, DNS name or URL'),
      control_method: token.describe('How control is shown, e.g. "eip191-signature", "ed25519-signature", "dns-txt", "did-web"'),
      control_evidence: urlVerifiableObject
        .optional()
        .describe(
          `For a checkable identifier: {message, signature}, message being exactly "${controlProofTemplate('<identifier>', '<claimer>')}" (or, without a claimer, "${controlProofTemplate('<identifier>', undefined)}"), signed_at in Unix seconds within ${SIGNED_PROOF_WINDOW_SECONDS} s of the service's clock. Anything else is carried verbatim as documented, not verified`,
        ),
      claimer: shortText(512).optional(),
    })
    .strict(),
);

export const controlProofRecordSchema = z.object({
  identifier: z.string(),
  control_method: z.string(),
  control_evidence: z.record(z.string(), z.json()).optional().describe('Omitted when empty (the verify default {})'),
  claimer: z.string().optional().describe('Omitted when empty (the verify default)'),
  verdict: z
    .enum(['CONTROL-VERIFIED', 'CONTROL-DOCUMENTED', 'CONTROL-FAILED', 'NOT-PROVIDED'])
    .describe('CONTROL-VERIFIED: the identifier signed this claim\'s text (identifier, claimer, a recent signed_at); CONTROL-FAILED: a signature checked and not proving that; CONTROL-DOCUMENTED: carried, not verified'),
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
    description: `Record {identifier, control_method, control_evidence?, claimer?, verdict, claimsAt}. CONTROL-VERIFIED only when control_evidence {message, signature} is the identifier's own signature (EIP-191 personal_sign for an EVM address or did:pkh:eip155, Ed25519 over the UTF-8 text for a did:key or raw key) over this claim's text, exactly "${controlProofTemplate('<identifier>', '<claimer>')}" (without a claimer: "${controlProofTemplate('<identifier>', undefined)}"), identifier and claimer as sent, signed_at in Unix seconds within ${SIGNED_PROOF_WINDOW_SECONDS} s of the service's clock. CONTROL-FAILED when the signature does not verify, or verifies over any other text (since 2026-11-28: before, a signature over any message counted). A proof in this text signed more than ${SIGNED_PROOF_WINDOW_SECONDS} s away is refused with 422 before any payment: sign it again. CONTROL-DOCUMENTED (carried verbatim, not verified) when the evidence cannot be checked offline (did:web, DNS, URL; the example is one); NOT-PROVIDED without evidence. A missing identifier or control_method is INVALID-INPUT, answered 422 before any payment.`,
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
    precheck: (input, _settings, now) => staleControlProofRefusal(input, now),
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
      claims_at: param.integer('claimsAt'),
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
