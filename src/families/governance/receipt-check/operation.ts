import { z } from 'zod';
import { jsonObject, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { checkOfferOrReceipt, type ReceiptCheckInput } from './engine.ts';
import { RECEIPT_CHECK_RULESET } from '../conformance-standard/standard.ts';

const checkList = z.array(z.object({ id: z.string(), status: z.enum(['pass', 'fail', 'not-provided']), evidence: z.string().optional() }));

const scoreSchema = z.object({ passed: z.number().int(), failed: z.number().int(), notProvided: z.number().int(), assessed: z.number().int(), ratio: z.number().nullable() });

export const receiptCheckRecord = z.object({
  kind: z.literal('bureau.receipt-check'),
  ruleset: rulesetMember(RECEIPT_CHECK_RULESET),
  artefact: z.enum(['offer', 'receipt']),
  format: z.enum(['jws', 'eip712']).nullable(),
  resourceUrl: z.string().nullable(),
  payload: z.record(z.string(), z.json()).nullable(),
  recoveredSigner: z.string().optional(),
  checks: checkList,
  score: scoreSchema,
  defects: z.array(z.string()),
  outcome: z.enum(['CONFORMANT', 'NON-CONFORMANT', 'INSUFFICIENT-DATA']),
  evidence_source: z.literal('caller-supplied').describe('The artefact and everything it is compared with were supplied by the caller'),
  checkedAt: z.number().int(),
});

const receiptCheckOperation = pricedOperation({
    id: 'bureau.receipt-check',
    method: 'POST',
    path: '/v1/bureau/receipt-check',
    family: 'governance',
    priceUsd: '0.05',
    summary: "Conformance check of an issuer's receipt or offer.",
    description:
      'Checks a signed offer or receipt of the x402 offer-and-receipt extension (format jws or eip712) against the receipt-check standard (GET /v1/bureau/standard, receiptCheck): envelope, required payload members, CAIP-2 network, atomic amount, consistency with the supplied requirements/offer/resourceUrl/payer, and the signature when a signer is supplied (eip712: expected address; jws: raw EdDSA or ES256K public key in hex). A JWS whose header or payload is not I-JSON (RFC 7493: a number such as 1e400 or an integer beyond 2^53, a lone surrogate, a duplicate or __proto__ member) or nests deeper than 31 levels fails ORC-FMT-001 with the reason, and the record carries payload null rather than a value the issuer did not sign. The signed record is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: z
      .object({
        artefact: z.enum(['offer', 'receipt']),
        signed: jsonObject.describe('The signed offer or receipt exactly as issued: {format, payload?, signature, acceptIndex?}'),
        requirements: jsonObject.optional().describe('The PaymentRequirements the artefact must agree with'),
        resourceUrl: z.string().min(1).max(2048).optional(),
        offer: jsonObject.optional().describe('For a receipt: the offer payload it must agree with'),
        payer: z.string().min(1).max(200).optional(),
        signer: z.object({ address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address').optional(), publicKey: z.string().regex(/^[0-9a-fA-F]{64}$|^[0-9a-fA-F]{66}$|^[0-9a-fA-F]{130}$/, 'must be a raw public key in hex (32, 33 or 65 bytes)').optional() }).strict().optional(),
      })
      .strict(),
    // A receipt genuinely signed (EIP-712, domain "x402 receipt") by the issuer named in signer,
    // so that the example checks the signature instead of leaving it not-provided.
    example: {
      artefact: 'receipt',
      signed: {
        format: 'eip712',
        payload: { version: 1, network: 'eip155:8453', resourceUrl: 'https://api.example.com/v1/data', payer: '0x1111111111111111111111111111111111111111', issuedAt: 1767225600, transaction: '0x6b1f0c7e3d5a9b2c4e8f1a0d3c5b7e9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1f' },
        signature: '0xb3c8d65a33573e83b2ff0b88559bdf1160c343d09666f68e8ae746e6fbcbdccc78fa9242d810e1ae8b2b7658b45c5c6016c75c2733fced5eca502993f1e81f3a1c',
      },
      payer: '0x1111111111111111111111111111111111111111',
      signer: { address: '0xF84207d3842aB58D9eFB1cF5CCA2EEEB5E1C2617' },
    },
    output: signedResponse(receiptCheckRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/bureau/verify',
    command: fromEngine((input: ReceiptCheckInput, now) => checkOfferOrReceipt(input, { now })),
  });

export const receiptCheck: Route[] = [receiptCheckOperation];
