import { z } from 'zod';
import { jsonObject } from '../../../kernel/route-kit/schemas.ts';
import { missingRequiredFields } from './required-fields.ts';
import { canonicalByteLength, type JsonObject } from '../../../signing/rfc8785.ts';

/**
 * Input and output schemas of the Trust and Reputation operations (the catalogue's boundary).
 * Records are described member by member so that /openapi.json tells a verifier what it gets.
 */

/**
 * Wraps an object schema so that every absent or blank required field is named in one
 * message ("missing required fields: a, b") before the member-by-member checks run: the
 * 422 answer, free and unsigned, names them all at once, with one issue per field as well.
 */
export function requiringFields<S extends z.ZodType>(names: readonly string[], schema: S) {
  return z.preprocess((value, ctx) => {
    const missing = missingRequiredFields(value, names);
    if (missing.length > 0) {
      ctx.addIssue({ code: 'custom', path: [], message: `missing required field${missing.length === 1 ? '' : 's'}: ${missing.join(', ')}`, input: value });
      for (const name of missing) ctx.addIssue({ code: 'custom', path: [name], message: 'is required', input: value });
    }
    return value;
  }, schema);
}

/**
 * Caller content that a GET verify route must carry back in its query string: bounded so the
 * whole URL stays under the HTTP server's header limit (MAX_HEADER_BYTES) even when
 * percent-encoded, which can triple its size (docs/operations/trust.md lists each route's largest URL).
 */
export const MAX_URL_VERIFIED_BYTES = 4096;
export const urlVerifiableObject = jsonObject.refine(
  (v: JsonObject) => canonicalByteLength(v) <= MAX_URL_VERIFIED_BYTES,
  `must be at most ${MAX_URL_VERIFIED_BYTES} bytes in RFC 8785 form (its free GET verify route carries it in the URL)`,
);

// ---- veritrack.attest
export const shortText = (max: number) => z.string().max(max);
export const at = (what: string) => z.number().int().describe(`Unix seconds, stamped by the service (${what})`);

