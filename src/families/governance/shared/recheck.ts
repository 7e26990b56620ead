import { onlyKinds, parseJsonParam, signedByKey, UnusableContent } from '../../../kernel/route-kit/verify-route.ts';
import { signingStampOf } from '../../../kernel/signing-stamp.ts';
import { z } from 'zod';
import { type JsonValue } from '../../../signing/rfc8785.ts';
import { check } from '../../../signing/seal.ts';
import { jsonObject } from '../../../kernel/route-kit/schemas.ts';
import { type ServiceDeps } from '../../../kernel/operation.ts';

/** POST verify input: the record as an object (evidenceCore) or as JSON text (body). */
export const recheckInput = z
  .object({ evidenceCore: jsonObject.optional(), body: z.string().optional(), sha256: z.string(), signature: z.string() })
  .refine((v) => v.evidenceCore !== undefined || v.body !== undefined, { message: 'is required (or body: the record as JSON text)', path: ['evidenceCore'] });

export function recheck(kinds: readonly string[]) {
  const kindRefusal = onlyKinds(...kinds);
  return async (input: z.infer<typeof recheckInput>, deps: ServiceDeps) => {
    const { keyId } = deps.keyring.publicKey('governance');
    const answer = { family: 'governance', keyId };
    let record: JsonValue;
    try {
      record = input.evidenceCore ?? parseJsonParam('body', input.body!);
    } catch (err) {
      if (!(err instanceof UnusableContent)) throw err;
      return { body: { valid: false, checks: { sha256: false, signature: false }, ...answer, reason: 'body is not valid JSON' } };
    }
    // Its signing stamp, where it has one, admits only the governance key valid then (key rotation).
    const { signer, ...result } = check(deps.keyring, 'governance', record, input.sha256, input.signature, signingStampOf(record));
    const signedBy = signer ? signedByKey('governance', signer) : answer;
    const reason = result.valid ? kindRefusal(input, record) : undefined;
    if (reason !== undefined) return { body: { ...result, valid: false, ...signedBy, reason } };
    return { body: { ...result, ...signedBy } };
  };
}

