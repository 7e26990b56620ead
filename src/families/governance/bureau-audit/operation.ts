import { z } from 'zod';
import { bureauAuditCommand } from './command.ts';
import { signedResponse, jsonValue } from '../../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { verifyResultSchema } from '../../../kernel/route-kit/verify-route.ts';
import { recheck, recheckInput } from '../shared/recheck.ts';
import { auditRecord } from '../shared/schemas.ts';

export const headers = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

const httpCapture = z.object({ status: z.number().int().min(100).max(599), headers, body: jsonValue.optional() }).strict();

export const auditInput = z
  .object({
    endpoint: z.object({ url: z.url(), method: z.string().regex(/^[A-Za-z]{3,7}$/, 'must be an HTTP method') }).strict(),
    challenge: httpCapture,
    paid: httpCapture.optional(),
    publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a 32-byte Ed25519 public key in hex').optional(),
    signedMember: z.string().min(1).max(64).optional(),
  })
  .strict();

const bureauAuditOperation = pricedOperation({
    id: 'bureau.audit',
    method: 'POST',
    path: '/v1/bureau/audit',
    family: 'governance',
    priceUsd: '0.25',
    summary: 'Full conformance audit of an endpoint.',
    description:
      'Audits an x402 endpoint against the bureau standard (GET /v1/bureau/standard) from a transcript the caller supplies (no live probe): the 402 challenge, optionally the paid answer and the issuer public key. Each check is pass, fail (with the evidence) or not-provided; the score counts only assessed checks. The sealed audit joins the public corpus (GET /v1/bureau/corpus). Header names are case-insensitive. The signed record is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: auditInput,
    example: {
      endpoint: { url: 'https://api.example.com/v1/data', method: 'GET' },
      challenge: { status: 402, headers: { 'payment-required': 'eyJ4NDAyVmVyc2lvbiI6Mn0=', 'cache-control': 'no-store' }, body: {} },
    },
    output: signedResponse(auditRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/bureau/verify',
    command: bureauAuditCommand,
  });

const bureauVerify = freeRoute({
    id: 'bureau.verify',
    method: 'POST',
    path: '/v1/bureau/verify',
    family: 'governance',
    summary: 'Re-checks a bureau result.',
    description:
      'Re-checks an audit, receipt check, reputation or anchor record: send the evidenceCore as an object (or body: the same as JSON text), sha256 and signature (the ed25519Sig). Re-canonicalises (RFC 8785), recomputes SHA-256 and checks the Ed25519 signature with the governance key. Any change gives valid=false.',
    inputFrom: 'query-or-json',
    input: recheckInput,
    output: verifyResultSchema,
    handle: recheck(['bureau.audit', 'bureau.receipt-check', 'bureau.reputation', 'bureau.anchor']),
  });

export const bureauAudit: Route[] = [bureauAuditOperation, bureauVerify];
