import type { JsonObject } from '../../../signing/rfc8785.ts';
import { receiptRecord } from '../../../kernel/route-kit/records.ts';

export const RECEIPT_REQUIRED_FIELDS = ['receiptType', 'tx', 'action'] as const;

export interface MintReceiptInput {
  receiptType: string;
  tx: string;
  action: string;
  actor?: string;
  subject?: string;
  metadata?: JsonObject;
}

/**
 * A typed receipt: the caller's fields carried verbatim, `kind` fixed to "receipt", mintsAt
 * stamped by the command. Optional members equal to their verify default are left out.
 */
export function mintReceipt(input: MintReceiptInput, now: number): JsonObject {
  return receiptRecord({
    kind: 'receipt',
    receiptType: input.receiptType,
    tx: input.tx,
    action: input.action,
    actor: input.actor,
    subject: input.subject,
    metadata: input.metadata,
    mintsAt: now,
  });
}
