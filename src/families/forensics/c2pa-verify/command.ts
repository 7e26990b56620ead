import type { Command } from '../../../kernel/operation.ts';
import { verifyC2paBinding } from './engine.ts';
import { type C2paVerifyInput } from './input.ts';
import { FORENSICS_EVENT_TYPES, c2paStream } from '../events.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { alreadyRecorded, recordOnce } from '../first-record-wins/record-once.ts';
import { storedRecordResult } from '../../../kernel/signing-stamp.ts';

/**
 * Persists the attestation under `c2pa-<attestation_id>` before it is signed, so the free
 * read-back finds it as soon as the paid call answers, with the same digest and signature.
 */
export const c2paVerifyCommand: Command<C2paVerifyInput> = {
  async execute(input, ctx) {
    const evidenceCore = verifyC2paBinding(input, ctx.now);
    const attestationId = evidenceCore.attestation_id as string;
    const recorded = await recordOnce(ctx, c2paStream(attestationId), {
      type: FORENSICS_EVENT_TYPES.c2paAttestationRecorded,
      data: { attestation_id: attestationId, evidenceCore },
    });
    const stored = recorded.event.data.evidenceCore as JsonObject;
    return storedRecordResult(stored, alreadyRecorded(recorded, stored.verifiedAt, ['content_hash.supplied_encoding']));
  },
};
