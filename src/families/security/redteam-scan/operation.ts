import { z } from 'zod';
import { fromEngine, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { jsonObject, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import { authorizedScan } from './engine.ts';
import { MAX_OPERATIONS, MAX_PARAMETERS, MAX_PARAMETERS_PER_LIST, MAX_PATH_LENGTH, MAX_SERVERS, openApiBeyondLimits } from './limits.ts';

const MAX_UNIX = 99_999_999_999;
const proof = z
  .object({
    target: z.string().min(1).max(2_000),
    scope: z.array(z.string().min(1).max(2_000)).min(1).max(100).describe('Hosts (api.example.com), wildcard hosts (*.example.com) or URL prefixes (https://api.example.com/v1/)'),
    not_before: z.number().int().min(0).max(MAX_UNIX).describe('Unix seconds'),
    not_after: z.number().int().min(0).max(MAX_UNIX).describe('Unix seconds'),
    issuer: z.string().min(1).max(200).describe('did:key (Ed25519) or an EVM address (EIP-191)'),
    signature: z.string().min(1).max(300).describe('Over the RFC 8785 text of {target, scope, not_before, not_after, issuer}'),
  })
  .strict();

const input = z
  .object({
    target: z.string().min(1).max(2_000).describe('A URL or a host'),
    authorization: z.array(proof).max(10).optional().describe('At least one valid proof is required for any assessment; without one the answer is a signed refusal'),
    artefacts: z
      .object({
        openapi: jsonObject.optional().describe(`An OpenAPI 3.x document of the target, nested at most 32 levels; at most ${MAX_OPERATIONS} operations, ${MAX_PARAMETERS} parameters (${MAX_PARAMETERS_PER_LIST} in one list), ${MAX_SERVERS} servers, paths of ${MAX_PATH_LENGTH} characters`),
        response_headers: z.record(z.string().max(200), z.string().max(8_000)).optional().describe('Response headers captured from the target'),
        security_txt: z.string().max(64_000).optional().describe('The target\'s /.well-known/security.txt'),
      })
      .strict()
      .optional(),
  })
  .strict();

export const redteamScan = pricedOperation({
  id: 'security.redteam.authorized-scan',
  method: 'POST',
  path: '/v1/security/redteam/authorized-scan',
  family: 'security',
  priceUsd: '0.25',
  summary: 'Compliance gate: refuses any assessment without a well-formed authorization proof; refusals are signed; no live probe.',
  description:
    `A proof {target, scope, not_before, not_after, issuer, signature} must verify (did:key Ed25519 or EIP-191 over the RFC 8785 text of the proof without its signature), be within its window at the call and cover the target; otherwise the answer is a signed REFUSED record with every reason. With a valid proof: a static review of the caller-supplied artefacts only: OpenAPI against the OWASP API Security Top 10 (2023), captured headers against the OWASP Secure Headers Project, security.txt against RFC 9116. An OpenAPI document beyond ${MAX_OPERATIONS} operations, ${MAX_PARAMETERS} parameters (${MAX_PARAMETERS_PER_LIST} in one parameters list), ${MAX_SERVERS} servers or paths of ${MAX_PATH_LENGTH} characters is refused with 422 openapi_too_large before any quote. Control of the target is not verified, and the record says so.`,
  inputFrom: 'json',
  input,
  example: { target: 'https://api.example.com', authorization: [], artefacts: { response_headers: { 'Strict-Transport-Security': 'max-age=63072000; includeSubDomains', 'X-Content-Type-Options': 'nosniff' } } },
  output: signedResponse(z.looseObject({ kind: z.literal('redteam-scan'), outcome: z.enum(['REFUSED', 'FINDINGS-HIGH', 'FINDINGS', 'NO-FINDINGS', 'INSUFFICIENT-DATA']), control_of_target: z.string(), scannedAt: z.number().int() }), 'evidenceCore'),
  keyFamily: 'redteam',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/security/redteam/recheck',
  precheck: (i) => openApiBeyondLimits(i.artefacts?.openapi),
  command: fromEngine(authorizedScan),
});

const recheck = verifyRoute({ id: 'security.redteam.recheck', method: 'POST', path: '/v1/security/redteam/recheck', family: 'security', keyFamily: 'redteam', summary: 'Re-checks a red-team scan result or signed refusal (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const redteamRoutes: Route[] = [redteamScan, recheck];
