import { z } from 'zod';
import type { RecordedEvent } from '../../../events/port.ts';

/** One stream per agent DID, `containment-<sha256 of the DID>`: every registration, in order. */
export const CONTAINMENT_STREAM_PREFIX = 'containment-';
export const CONTAINMENT_REGISTERED = 'ContainmentRegistered';

export const containmentRegisteredSchema = z
  .object({
    registration: z.record(z.string(), z.json()),
    registration_id: z.string().regex(/^[0-9a-f]{64}$/),
    registrar: z.string().regex(/^0x[0-9a-f]{40}$/),
    paymentId: z.string(),
    /**
     * The signed_at of the agent's own proof, when it verified: from then on only a later proof
     * supersedes. Absent for a registration the agent did not prove, and in every event written
     * before proofs existed (those still parse and fold).
     */
    agentProofSignedAt: z.number().int().optional(),
  })
  .strict();
export type ContainmentRegistered = z.infer<typeof containmentRegisteredSchema>;
export type ContainmentEvent = { type: typeof CONTAINMENT_REGISTERED; data: ContainmentRegistered };

export function parseContainmentEvent(event: RecordedEvent): ContainmentEvent {
  if (event.type !== CONTAINMENT_REGISTERED) throw new Error(`unexpected event ${event.type} in ${event.stream}`);
  return { type: CONTAINMENT_REGISTERED, data: containmentRegisteredSchema.parse(event.data) };
}
