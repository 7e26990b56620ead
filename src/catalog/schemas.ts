import { z } from 'zod';
import type { JsonObject, JsonValue } from '../signing/canonical.ts';
import { isJsonWithin, jsonProblem, MAX_JSON_DEPTH } from '../engines/bounded-json.ts';
import type { SignedMember } from './types.ts';

// One wording for an absent field across every schema of the catalogue.
z.config({ customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined) });

export { MAX_JSON_DEPTH };

/**
 * Any JSON value, nested at most MAX_JSON_DEPTH deep, checked in one pass that cannot overflow
 * the stack however deep the input: even absurd nesting is a 422, not a 500.
 */
export const jsonValue = z.custom<JsonValue>((v) => isJsonWithin(v, MAX_JSON_DEPTH), {
  error: (issue) => jsonProblem(issue.input, MAX_JSON_DEPTH),
});

/** A JSON object, the same way; documented in /openapi.json as an object of any members. */
export const jsonObject = z
  .custom<JsonObject>((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && isJsonWithin(v, MAX_JSON_DEPTH), {
    error: (issue) => (issue.input !== null && typeof issue.input === 'object' && !Array.isArray(issue.input) ? jsonProblem(issue.input, MAX_JSON_DEPTH) : issue.input === undefined ? 'is required' : 'must be a JSON object'),
  })
  .meta({ type: 'object' });

/** A short identifier-like label: "invoice", "model-eval.v2", "did:key". */
export const token = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/, 'must be 1-64 characters: letters, digits and . _ : / - (starting with a letter or digit)');

export const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters');

/** The members every signed response carries beside its record. */
export const signatureEnvelope = {
  sha256: hex64.describe('SHA-256 of the RFC 8785 canonical record, lowercase hex'),
  ed25519Sig: z.string().regex(/^[0-9a-f]{128}$/).describe('Ed25519 signature over the canonical record, lowercase hex'),
  keyId: z.string().regex(/^[0-9a-f]{16}$/).describe('First 16 hex characters of SHA-256 of the raw public key'),
  publicKeyUrl: z.url().describe('Free route publishing the family public key'),
  verifyUrl: z.url().optional().describe('Free route that re-checks this result'),
};

/** Response schema of a signed result: the record at the top level or under its member. */
export function signedResponse(record: z.ZodObject, member: SignedMember | null): z.ZodObject {
  return member ? z.object({ [member]: record, ...signatureEnvelope }) : record.extend(signatureEnvelope);
}

/** Placeholder schemas of catalogued operations that are not built yet (they answer 501). */
export const notBuiltInput = z.looseObject({});
export const notBuiltOutput = z.looseObject({}).describe('Not built yet: the route answers 501 not_implemented.');
