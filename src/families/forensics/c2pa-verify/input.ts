import { z } from 'zod';
import { jsonObjectData } from '../../../kernel/json.ts';
import { SUPPORTED_DIGEST_ALGORITHMS, decodeDigest } from './digest-encoding.ts';

const jsonRecord = jsonObjectData;

export const c2paVerifyInputSchema = z
  .object({
    manifest_store: jsonRecord.optional().describe('The manifest store as c2patool prints it (summary or --detailed report)'),
    hard_binding: jsonRecord
      .optional()
      .describe('The hard-binding assertion: {label?, data: {alg, hash, exclusions}} or its data {alg, hash, exclusions} alone; needed when the report omits it'),
    content_hash: z
      .object({
        alg: z.enum(['sha256', 'sha384', 'sha512']),
        value: z.string().describe('The digest as hex (exactly twice the digest length) or base64'),
      })
      .strict()
      .superRefine((hash, ctx) => {
        if (!decodeDigest(hash.value, hash.alg)) {
          ctx.addIssue({ code: 'custom', path: ['value'], message: `must be a ${hash.alg} digest: ${SUPPORTED_DIGEST_ALGORITHMS[hash.alg] * 2} hex characters or base64 of ${SUPPORTED_DIGEST_ALGORITHMS[hash.alg]} bytes` });
        }
      }),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (!input.manifest_store && !input.hard_binding) {
      ctx.addIssue({ code: 'custom', path: ['manifest_store'], message: 'manifest_store or hard_binding is required' });
    }
  });

export type C2paVerifyInput = z.infer<typeof c2paVerifyInputSchema>;
