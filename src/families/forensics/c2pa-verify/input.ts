import { z } from 'zod';
import { jsonObjectData } from '../../../kernel/json.ts';
import { SUPPORTED_DIGEST_ALGORITHMS, decodeDigest } from './digest-encoding.ts';

const jsonRecord = jsonObjectData;

/**
 * Hex of exactly the digest's length, or its canonical padded standard base64: before padding,
 * the last character carries only the digest's remaining bits (the rest zero).
 */
function digestOf<A extends string>(alg: A, bytes: number) {
  const base64Chars = Math.ceil(bytes / 3) * 4;
  const padding = '='.repeat(base64Chars - Math.ceil((bytes * 4) / 3));
  const last = padding.length === 2 ? '[AQgw]' : padding.length === 1 ? '[AEIMQUYcgkosw048]' : '[A-Za-z0-9+/_-]';
  // Standard or URL-safe base64, padded or not (decodeDigest reads both).
  const pattern = new RegExp(`^(?:[0-9a-fA-F]{${bytes * 2}}|[A-Za-z0-9+/_-]{${base64Chars - padding.length - 1}}${last}(?:${padding})?)$`);
  return z
    .object({ alg: z.literal(alg), value: z.string().regex(pattern, `must be a ${alg} digest: ${bytes * 2} hex characters or base64 of ${bytes} bytes`).describe('The digest as hex (exactly twice the digest length) or base64') })
    .strict();
}

export const c2paVerifyInputSchema = z
  .object({
    manifest_store: jsonRecord.optional().describe('The manifest store as c2patool prints it (summary or --detailed report)'),
    hard_binding: jsonRecord
      .optional()
      .describe('The hard-binding assertion: {label?, data: {alg, hash, exclusions}} or its data {alg, hash, exclusions} alone; needed when the report omits it'),
    // One variant per algorithm, so the published schema carries each digest's exact form.
    content_hash: z
      .discriminatedUnion('alg', [digestOf('sha256', 32), digestOf('sha384', 48), digestOf('sha512', 64)])
      .superRefine((hash, ctx) => {
        if (!decodeDigest(hash.value, hash.alg)) {
          ctx.addIssue({ code: 'custom', path: ['value'], message: `must be a ${hash.alg} digest: ${SUPPORTED_DIGEST_ALGORITHMS[hash.alg] * 2} hex characters or base64 of ${SUPPORTED_DIGEST_ALGORITHMS[hash.alg]} bytes` });
        }
      }),
  })
  .strict()
  // Published as well as checked: a schema-valid request names at least one of the two.
  .meta({ anyOf: [{ required: ['manifest_store'] }, { required: ['hard_binding'] }] })
  .superRefine((input, ctx) => {
    if (!input.manifest_store && !input.hard_binding) {
      ctx.addIssue({ code: 'custom', path: ['manifest_store'], message: 'manifest_store or hard_binding is required' });
    }
  });

export type C2paVerifyInput = z.infer<typeof c2paVerifyInputSchema>;
