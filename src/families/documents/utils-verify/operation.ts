import { z } from 'zod';
import { freeRoute, type Route } from '../../../kernel/operation.ts';
import { utilityRecord } from '../../../kernel/route-kit/records.ts';
import { param, parseIntegerParam, parseJsonParam, signedByKey, UnusableContent, verifyResultSchema } from '../../../kernel/route-kit/verify-route.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { check } from '../../../signing/seal.ts';
import { outputBytes, type OutputEncoding } from '../utility-receipt.ts';

const KEY_FAMILY = 'utils';

const utilsVerifyInput = z.object({
  kind: param.text(),
  utility: param.text(),
  served_at: param.integer('servedAt'),
  result: param.json("the record's utility_result").describe('utility_result as JSON text'),
  output: z
    .string()
    .optional()
    .describe('Optional: the `output` member answered beside the record, exactly as received (text, or base64 when utility_result.output_encoding is "base64"); its SHA-256 is checked against utility_result.output_sha256'),
  signature: param.signature(),
  sha256: param.sha256(),
});

export interface OutputCheck {
  ok: boolean;
  reason?: string;
}

/**
 * Whether `output` is the output the record binds: decoded per utility_result.output_encoding,
 * hashed, and compared with utility_result.output_sha256. The signature covers the digest, so a
 * matching digest in a valid record proves the output is the one the service answered.
 */
export function checkOutputDigest(utilityResult: JsonValue, output: string): OutputCheck {
  if (utilityResult === null || typeof utilityResult !== 'object' || Array.isArray(utilityResult)) return { ok: false, reason: 'result is not an object: it binds no output' };
  const expected = utilityResult['output_sha256'];
  if (typeof expected !== 'string') return { ok: false, reason: 'utility_result has no output_sha256: it binds no output' };
  const encoding: OutputEncoding = utilityResult['output_encoding'] === 'base64' ? 'base64' : 'utf-8';
  const bytes = outputBytes(output, encoding);
  // Buffer's base64 decoder skips what it cannot read: only the canonical text of these bytes is the output.
  if (encoding === 'base64' && bytes.toString('base64') !== output) return { ok: false, reason: 'output is not canonical base64' };
  if (sha256Hex(bytes) !== expected) return { ok: false, reason: 'the SHA-256 of output does not equal utility_result.output_sha256' };
  return { ok: true };
}

const DESCRIPTION =
  'Re-canonicalises the utility receipt (RFC 8785), recomputes its SHA-256 and checks the Ed25519 signature with the utils key. With `output` (the member answered beside the record, as received) it also decodes it per utility_result.output_encoding and compares its SHA-256 with utility_result.output_sha256: checks.output_sha256 says whether they match, and valid is true only when every check passes. Any change to content, hash, signature, timestamp or a single output byte gives valid=false.';

/**
 * /v1/utils/verify: the spec's verify route of the utility receipt, extended. Beside the record's
 * members it takes the output that travelled beside the record and checks its digest too; the
 * output is optional, so a verifier of the record alone calls it as the spec says. GET takes the
 * parameters in the query, as the spec says; POST takes the same ones as members of a JSON body,
 * because findings and outputs pass the 64 KiB a request line and headers may hold.
 */
const utilsVerify = (method: 'GET' | 'POST') =>
  freeRoute({
    id: method === 'GET' ? 'utils.verify' : 'utils.verify.post',
    method,
    path: '/v1/utils/verify',
    family: 'documents',
    summary:
      method === 'GET'
        ? 'Re-checks a utility receipt {kind, utility, servedAt, utility_result} (result = utility_result as JSON), and the output beside it when supplied.'
        : 'Re-checks a utility receipt and the output beside it sent as a JSON body {kind, utility, served_at, result, output?, sha256, signature}, for a receipt or an output too large for a URL.',
    description:
      method === 'GET'
        ? `${DESCRIPTION} The request line and headers may hold 64 KiB; a larger receipt or output is re-checked on POST with the same parameters as a JSON body (docs/operations/documents/utility-receipt.md).`
        : `${DESCRIPTION} The same check as GET /v1/utils/verify, with the parameters as members of a JSON body (at most 1 MiB).`,
    input: utilsVerifyInput,
    inputFrom: method === 'GET' ? 'query' : 'query-or-json',
    output: verifyResultSchema,
    async handle(params, deps) {
      const { keyId } = deps.keyring.publicKey(KEY_FAMILY);
      const answer = { family: KEY_FAMILY, keyId };
      let utilityResult: JsonValue;
      try {
        utilityResult = parseJsonParam('result', params.result);
      } catch (err) {
        if (!(err instanceof UnusableContent)) throw err;
        return { body: { valid: false, checks: { sha256: false, signature: false }, ...answer, reason: err.message } };
      }
      const record = utilityRecord({ kind: params.kind, utility: params.utility, servedAt: parseIntegerParam(params.served_at), utility_result: utilityResult });
      // servedAt is the receipt's signing time: only the utils key valid then verifies it (key rotation).
      const { signer, ...result } = check(deps.keyring, KEY_FAMILY, record, params.sha256, params.signature, parseIntegerParam(params.served_at));
      const signedBy = signer ? signedByKey(KEY_FAMILY, signer) : answer;
      if (params.output === undefined) return { body: { ...result, ...signedBy } };
      const output = checkOutputDigest(utilityResult, params.output);
      const checks = { ...result.checks, output_sha256: output.ok };
      const reason = [result.reason, output.reason].filter((r) => r !== undefined).join('; ');
      return { body: { valid: result.valid && output.ok, checks, ...signedBy, ...(reason ? { reason } : {}) } };
    },
  });

export const utilsVerifyRoutes: Route[] = [utilsVerify('GET'), utilsVerify('POST')];
