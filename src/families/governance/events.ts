import { z } from 'zod';
import { recordedJsonObject } from '../../kernel/json.ts';

/**
 * The governance family's events. Spend governor: one stream per payer's agent,
 * `governance-payer-<payer>-agent-<agent_id>` (agentStreamName). Bureau: one stream per audit,
 * `bureau-audit-<audit_id>`. Amounts are integer strings of micro-units (1e-6 of the budget's
 * unit), so sums stay exact.
 */
const micros = z.string().regex(/^\d{1,21}$/);
const address = z.string().regex(/^0x[0-9a-f]{40}$/);

export const budgetOpenedSchema = z.object({
  agent_id: z.string(),
  owner: address,
  capMicros: micros,
  periodSeconds: z.number().int().positive(),
  openedAt: z.number().int(),
  paymentId: z.string(),
});

export const leaseReservedSchema = z.object({
  lease_id: z.string(),
  amountMicros: micros,
  purpose: z.string(),
  reservedAt: z.number().int(),
  expiresAt: z.number().int(),
  paymentId: z.string(),
  /** The signed reserve record, so that a resumed call returns the very same bytes. */
  record: recordedJsonObject,
});

export const reserveRefusedSchema = z.object({
  paymentId: z.string(),
  record: recordedJsonObject,
});

export const leaseSettledSchema = z.object({
  lease_id: z.string(),
  actualMicros: micros,
  settledAt: z.number().int(),
  paymentId: z.string(),
  /** The settlement receipt: returned unchanged by every later settle of the same lease. */
  record: recordedJsonObject,
});

export const bureauAuditRecordedSchema = z.object({
  auditId: z.string(),
  paymentId: z.string(),
  record: recordedJsonObject,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  ed25519Sig: z.string().regex(/^[0-9a-f]{128}$/),
  keyId: z.string(),
});

export const GOVERNANCE_EVENT_TYPES = {
  budgetOpened: 'BudgetOpened',
  leaseReserved: 'LeaseReserved',
  reserveRefused: 'ReserveRefused',
  leaseSettled: 'LeaseSettled',
  bureauAuditRecorded: 'BureauAuditRecorded',
} as const;

export type BudgetOpened = z.infer<typeof budgetOpenedSchema>;
export type LeaseReserved = z.infer<typeof leaseReservedSchema>;
export type ReserveRefused = z.infer<typeof reserveRefusedSchema>;
export type LeaseSettled = z.infer<typeof leaseSettledSchema>;
export type BureauAuditRecorded = z.infer<typeof bureauAuditRecordedSchema>;

export type GovernorEvent =
  | { type: 'BudgetOpened'; data: BudgetOpened }
  | { type: 'LeaseReserved'; data: LeaseReserved }
  | { type: 'ReserveRefused'; data: ReserveRefused }
  | { type: 'LeaseSettled'; data: LeaseSettled };

export function parseGovernorEvent(event: { type: string; data: unknown }): GovernorEvent {
  switch (event.type) {
    case 'BudgetOpened':
      return { type: 'BudgetOpened', data: budgetOpenedSchema.parse(event.data) };
    case 'LeaseReserved':
      return { type: 'LeaseReserved', data: leaseReservedSchema.parse(event.data) };
    case 'ReserveRefused':
      return { type: 'ReserveRefused', data: reserveRefusedSchema.parse(event.data) };
    case 'LeaseSettled':
      return { type: 'LeaseSettled', data: leaseSettledSchema.parse(event.data) };
    default:
      throw new Error(`unexpected event ${event.type} in a governance agent stream`);
  }
}

/**
 * A payer's agent: the payer (0x and 40 lowercase hex, a fixed form) and the agent id (a closed
 * alphabet without ':'), so no choice of agent id makes two payers' agents share a stream. The
 * prefix differs from the legacy one: no agent id makes a legacy name equal a payer's.
 */
export const agentStreamName = (payer: string, agentId: string): string => `governance-payer-${payer.toLowerCase()}-agent-${agentId}`;

/**
 * Where agents lived before they were scoped to their payer: one stream per agent id, whoever
 * paid. No new agent is opened under this name; an agent already there stays the payer's that
 * opened its budget, read and extended in place (spend-governor/agent-stream.ts).
 */
export const legacyAgentStreamName = (agentId: string): string => `governance-agent-${agentId}`;
export const auditStreamName = (auditId: string): string => `bureau-audit-${auditId}`;
