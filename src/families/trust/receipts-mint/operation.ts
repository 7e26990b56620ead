import { z } from 'zod';
import { receiptRecord } from '../../../kernel/route-kit/records.ts';
import { signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { mintReceipt } from './engine.ts';
import { at, shortText, urlVerifiableObject, requiringFields } from '../shared/schemas.ts';

export const receiptInput = requiringFields(
  ['receiptType', 'tx', 'action'],
  z
    .object({
      receiptType: token.describe('The receipt type, e.g. "payment", "delivery", "tool-call"'),
      tx: shortText(512).describe('Transaction hash or reference, carried verbatim'),
      action: shortText(512).describe('What was done, carried verbatim'),
      actor: shortText(512).optional(),
      subject: shortText(512).optional(),
      metadata: urlVerifiableObject.optional(),
    })
    .strict(),
);

export const receiptRecordSchema = z.object({
  kind: z.literal('receipt'),
  receiptType: z.string(),
  tx: z.string(),
  action: z.string(),
  actor: z.string().optional().describe('Omitted when empty (the verify default)'),
  subject: z.string().optional().describe('Omitted when empty (the verify default)'),
  metadata: z.record(z.string(), z.json()).optional().describe('Omitted when empty (the verify default {})'),
  mintsAt: at('mint time'),
});

// ---- identity.control-proof

const receiptsMintOperation = pricedOperation({
    id: 'receipts.mint',
    method: 'POST',
    path: '/v1/receipts/mint',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Typed signed receipt for any transaction or action; mintsAt stamped; caller fields carried verbatim.',
    description:
      'Record {kind: "receipt", receiptType, tx, action, actor?, subject?, metadata?, mintsAt}. Caller fields are carried verbatim; an optional member that is empty is left out, so the verify route rebuilds it from its defaults. A missing receiptType, tx or action is INVALID-INPUT, answered 422 before any payment.',
    inputFrom: 'json',
    input: receiptInput,
    example: { receiptType: 'payment', tx: '0x6b1f0c7e3d5a9b2c4e8f1a0d3c5b7e9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1f', action: 'settled invoice 2026-0142', actor: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', metadata: { amountUsd: '12.50' } },
    output: signedResponse(receiptRecordSchema, null),
    keyFamily: 'receipts',
    signedMember: null,
    verifyPath: '/v1/receipts/verify',
    command: fromEngine(mintReceipt),
  });

const receiptsVerifyRoutes = verifyRouteOnGetAndPost({
    id: 'receipts.verify',
    path: '/v1/receipts/verify',
    family: 'trust',
    keyFamily: 'receipts',
    summary: 'Re-checks a typed receipt {kind, receiptType, tx, action, actor?, subject?, metadata?, mintsAt}.',
    params: {
      kind: param.optionalText(),
      receipt_type: param.optionalText(),
      tx: param.optionalText(),
      action: param.optionalText(),
      actor: param.optionalText(),
      subject: param.optionalText(),
      metadata: param.optionalJson('{}'),
      mints_at: param.integer('mintsAt'),
    },
    rebuild: (p) =>
      receiptRecord({
        kind: p.kind,
        receiptType: p.receipt_type,
        tx: p.tx,
        action: p.action,
        actor: p.actor,
        subject: p.subject,
        metadata: parseJsonParam('metadata', p.metadata),
        mintsAt: parseIntegerParam(p.mints_at),
      }),
  });

export const receiptsMint: Route[] = [receiptsMintOperation, ...receiptsVerifyRoutes];
