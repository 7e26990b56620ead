import { z } from 'zod';
import { recordedJsonObject } from '../../kernel/json.ts';
import type { RecordedEvent } from '../../events/port.ts';

/**
 * Forensics events. Each sealed evidence entry lives in its own stream `evidence-<entryId>`,
 * each C2PA attestation in `c2pa-<attestation_id>`: a read by id reads one short stream, never a
 * projection that may lag behind the write it must see.
 */
export const FORENSICS_EVENT_TYPES = {
  evidenceSealed: 'EvidenceSealed',
  c2paAttestationRecorded: 'C2paAttestationRecorded',
} as const;

export const evidenceStream = (entryId: string): string => `evidence-${entryId}`;
export const c2paStream = (attestationId: string): string => `c2pa-${attestationId}`;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The sealed record exactly as signed, so that the digest a query binds is the ingest's digest. */
export const evidenceSealedSchema = z.object({
  entryId: hex64,
  sealed: recordedJsonObject.refine((r) => typeof r.entryId === 'string', 'sealed record must carry its entryId'),
});
export type EvidenceSealed = z.infer<typeof evidenceSealedSchema>;

/** Same shape the C2PA read-back route parses. */
export const c2paAttestationRecordedSchema = z.object({
  attestation_id: hex64,
  evidenceCore: recordedJsonObject,
});
export type C2paAttestationRecorded = z.infer<typeof c2paAttestationRecordedSchema>;

export type ForensicsEvent =
  | { type: typeof FORENSICS_EVENT_TYPES.evidenceSealed; data: EvidenceSealed }
  | { type: typeof FORENSICS_EVENT_TYPES.c2paAttestationRecorded; data: C2paAttestationRecorded };

/** Stored event -> typed event; anything else in these streams is a corrupted log, and says so. */
export function parseForensicsEvent(event: RecordedEvent): ForensicsEvent {
  switch (event.type) {
    case FORENSICS_EVENT_TYPES.evidenceSealed:
      return { type: event.type, data: evidenceSealedSchema.parse(event.data) };
    case FORENSICS_EVENT_TYPES.c2paAttestationRecorded:
      return { type: event.type, data: c2paAttestationRecordedSchema.parse(event.data) };
    default:
      throw new Error(`unexpected event type ${event.type} in forensics stream ${event.stream}`);
  }
}
