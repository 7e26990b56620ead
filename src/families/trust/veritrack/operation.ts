import { z } from 'zod';
import { veritrackRecord } from '../../../kernel/route-kit/records.ts';
import { jsonObject, signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { attestClaim } from './engine.ts';
import { urlVerifiableObject } from '../shared/schemas.ts';

export const veritrackInput = z.object({ kind: token, claim: urlVerifiableObject }).strict();

const veritrackRecordSchema = z.object({
  kind: token,
  attestedAt: z.number().int().describe('Unix seconds, stamped by the service'),
  claim: jsonObject,
});

const veritrackAttest = pricedOperation({
    id: 'veritrack.attest',
    method: 'POST',
    path: '/v1/veritrack/attest',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Signs and SHA-256 hashes an arbitrary claim into a receipt.',
    description:
      'The claim (any JSON object, nested at most 32 levels and at most 4096 bytes in RFC 8785 form, so that the free GET verify route can carry it) is carried verbatim into the record {kind, attestedAt, claim}, canonicalised with RFC 8785, hashed with SHA-256 and signed with the veritrack Ed25519 key.',
    inputFrom: 'json',
    input: veritrackInput,
    example: { kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } },
    output: signedResponse(veritrackRecordSchema, null),
    keyFamily: 'veritrack',
    signedMember: null,
    verifyPath: '/v1/veritrack/verify',
    command: fromEngine(attestClaim),
  });

const veritrackVerifyRoutes = verifyRouteOnGetAndPost({
    id: 'veritrack.verify',
    path: '/v1/veritrack/verify',
    family: 'trust',
    keyFamily: 'veritrack',
    summary: 'Re-checks a veritrack attestation {kind, attestedAt, claim}.',
    params: { kind: param.text(), attested_at: param.integer('attestedAt'), claim: param.optionalJson('{}') },
    rebuild: (p) => veritrackRecord({ kind: p.kind, attestedAt: parseIntegerParam(p.attested_at), claim: parseJsonParam('claim', p.claim) }),
  });

export const veritrack: Route[] = [veritrackAttest, ...veritrackVerifyRoutes];
