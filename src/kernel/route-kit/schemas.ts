import { z } from 'zod';
import { jsonData, jsonObjectData, MAX_JSON_DEPTH } from '../json.ts';
import type { SignedMember } from '../operation.ts';

// One wording for an absent field across every schema of the catalogue.
z.config({ customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined) });

export { MAX_JSON_DEPTH };

/** Free-form caller JSON: any value, or an object, at most MAX_JSON_DEPTH deep (kernel/json.ts). */
export const jsonValue = jsonData;
export const jsonObject = jsonObjectData;

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

/** The one member naming the rules that produced a record, and their version (docs/records-and-outcomes.md). */
export function rulesetMember(ruleset: { id: string; version: string }): z.ZodObject {
  return z.looseObject({ id: z.literal(ruleset.id), version: z.literal(ruleset.version) }).describe('The rules that produced this record and their version');
}
