import { z } from 'zod';
import { recordedJsonObject } from '../../../kernel/json.ts';
import type { RecordedEvent } from '../../../events/port.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

export const CONTAINMENT_STREAM_PREFIX = 'containment-';

/**
 * The agent's own chain, `containment-<sha256 of the DID>`: the registrations the agent signed
 * (agent_proof verified). Before registrations were scoped to their declarer it held every
 * registration of the agent, whoever paid; those stay readable there, and the payer that opened
 * such a stream unproven goes on extending it (registration-chain.ts).
 */
export const agentChainStream = (agentDid: string): string => `${CONTAINMENT_STREAM_PREFIX}${canonicalSha256([agentDid])}`;

/** A payer's own chain of an agent: the registrations that payer made without the agent's proof. */
export const payerChainStream = (payer: string, agentDid: string): string => `${CONTAINMENT_STREAM_PREFIX}payer-${payer.toLowerCase()}-agent-${canonicalSha256([agentDid])}`;
export const CONTAINMENT_REGISTERED = 'ContainmentRegistered';

export const containmentRegisteredSchema = z
  .object({
    registration: recordedJsonObject,
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
