import type { JsonObject } from '../../../signing/rfc8785.ts';

/**
 * The bureau's published x402 conformance standard. Every audit names the version it was
 * judged against; a change to any check's meaning is a new version.
 */
export const CONFORMANCE_RULESET = { id: 'x402-conformance', version: '1' } as const;
/**
 * Version 2 (2026-11-27): a JWS header or payload that is not I-JSON (RFC 7493) fails ORC-FMT-001.
 * Version 3 (2026-11-28): an EIP-712 signature is recovered even when no signer is supplied, and
 * one that recovers to no address fails ORC-SIG-001 (version 2 left it not-provided, so an
 * all-zero signature was CONFORMANT).
 */
export const RECEIPT_CHECK_RULESET = { id: 'x402-offer-receipt-conformance', version: '3' } as const;
/** The version strings this document has always been published under ("x402-conformance/v1"). */
export const CONFORMANCE_STANDARD_VERSION = `${CONFORMANCE_RULESET.id}/v${CONFORMANCE_RULESET.version}`;
export const RECEIPT_CHECK_STANDARD_VERSION = `${RECEIPT_CHECK_RULESET.id}/v${RECEIPT_CHECK_RULESET.version}`;

export type Severity = 'critical' | 'major' | 'minor';

export interface ConformanceCheck {
  id: string;
  title: string;
  requires: string;
  /** Where the x402 v2 specification requires it: document and section name. */
  reference: string;
  severity: Severity;
  /** Which part of a transcript it reads. */
  appliesTo: 'challenge' | 'paid';
}

const HTTP = 'x402 v2 specification, Transport: HTTP';
const CORE = 'x402 v2 specification, core types';
const EXACT_EVM = 'x402 v2 specification, scheme exact on EVM';

export const AUDIT_CHECKS: readonly ConformanceCheck[] = [
  { id: 'X402-HDR-001', title: '402 with PAYMENT-REQUIRED', requires: 'An unpaid request to a priced resource is answered with status 402 and a PAYMENT-REQUIRED header.', reference: `${HTTP}, "Payment Required Signaling"`, severity: 'critical', appliesTo: 'challenge' },
  { id: 'X402-ENC-001', title: 'Standard base64 of JSON', requires: 'The PAYMENT-REQUIRED header is standard base64 (RFC 4648 section 4, padded, not base64url) of a UTF-8 JSON object.', reference: `${HTTP}, "Payment Required Signaling" (Data Format: Base64-encoded PaymentRequired)`, severity: 'critical', appliesTo: 'challenge' },
  { id: 'X402-VER-001', title: 'x402Version', requires: 'The PaymentRequired object carries x402Version equal to 2.', reference: `${CORE}, "PaymentRequired"`, severity: 'critical', appliesTo: 'challenge' },
  { id: 'X402-RES-001', title: 'Resource', requires: 'The PaymentRequired object carries resource.url, the URL of the priced resource.', reference: `${CORE}, "PaymentRequired" (resource)`, severity: 'major', appliesTo: 'challenge' },
  { id: 'X402-ACC-001', title: 'Non-empty accepts', requires: 'accepts is a non-empty array of PaymentRequirements.', reference: `${CORE}, "PaymentRequired" (accepts)`, severity: 'critical', appliesTo: 'challenge' },
  { id: 'X402-REQ-001', title: 'PaymentRequirements members', requires: 'Every entry of accepts carries scheme, network, amount, asset, payTo and maxTimeoutSeconds.', reference: `${CORE}, "PaymentRequirements"`, severity: 'critical', appliesTo: 'challenge' },
  { id: 'X402-NET-001', title: 'CAIP-2 network', requires: 'Every network is a CAIP-2 chain id (namespace:reference, e.g. eip155:8453), not a v1 name such as "base".', reference: `${CORE}, "PaymentRequirements" (network)`, severity: 'major', appliesTo: 'challenge' },
  { id: 'X402-AMT-001', title: 'Atomic-unit amount', requires: 'Every amount is a JSON string of a non-negative integer in the asset\'s atomic units (no decimals, no number type).', reference: `${CORE}, "PaymentRequirements" (amount)`, severity: 'critical', appliesTo: 'challenge' },
  { id: 'X402-EIP-001', title: 'EIP-3009 domain in extra', requires: 'Every exact requirement on an eip155 network carries extra.name and extra.version, the EIP-712 domain of the EIP-3009 asset.', reference: `${EXACT_EVM}, "PaymentRequirements extra (name, version)"`, severity: 'major', appliesTo: 'challenge' },
  { id: 'X402-TMO-001', title: 'maxTimeoutSeconds', requires: 'Every maxTimeoutSeconds is a positive integer.', reference: `${CORE}, "PaymentRequirements" (maxTimeoutSeconds)`, severity: 'minor', appliesTo: 'challenge' },
  { id: 'X402-CCH-001', title: 'Cache-Control on 402', requires: 'The 402 answer carries Cache-Control: no-store, so no cache replays a quote.', reference: `${HTTP}, "Payment Required Signaling" (a quote is per request; RFC 9111 no-store)`, severity: 'minor', appliesTo: 'challenge' },
  { id: 'X402-COR-001', title: 'CORS exposure', requires: 'Access-Control-Expose-Headers names PAYMENT-REQUIRED and PAYMENT-RESPONSE (or *) on the 402 and, when supplied, on the paid answer, so browser clients can read them.', reference: `${HTTP}, "Payment Required Signaling" and "Settlement Response Delivery" (Fetch standard, CORS)`, severity: 'minor', appliesTo: 'challenge' },
  { id: 'X402-PRS-001', title: 'PAYMENT-RESPONSE on the paid answer', requires: 'The paid answer is 2xx and carries PAYMENT-RESPONSE: standard base64 of a SettlementResponse with success true, transaction and network.', reference: `${HTTP}, "Settlement Response Delivery"; ${CORE}, "SettlementResponse"`, severity: 'critical', appliesTo: 'paid' },
  { id: 'X402-SIG-001', title: 'Signed results re-check', requires: 'When the issuer signs its results (sha256 and ed25519Sig in the paid body), the SHA-256 of the RFC 8785 canonical record and the Ed25519 signature verify with the supplied public key.', reference: 'Issuer practice beyond the x402 core: signed results must verify (RFC 8785, RFC 8032)', severity: 'major', appliesTo: 'paid' },
];

export const RECEIPT_CHECKS: readonly ConformanceCheck[] = [
  { id: 'ORC-FMT-001', title: 'Signed envelope', requires: 'format is "jws" or "eip712"; an eip712 artefact carries payload and a 65-byte 0x signature; a jws artefact carries a compact JWS and no payload, whose header and payload are UTF-8 I-JSON objects (RFC 7493: no duplicate member names, no lone surrogates, every number exactly representable; no __proto__ member) nesting at most 31 levels, so the signed record carries the payload exactly as the issuer signed it.', reference: 'x402 offer-and-receipt extension v1.0, section 3.1.1', severity: 'critical', appliesTo: 'paid' },
  { id: 'ORC-REQ-001', title: 'Required payload members', requires: 'An offer payload carries version, resourceUrl, scheme, network, asset, payTo, amount (validUntil optional); a receipt payload carries version, network, resourceUrl, payer, issuedAt.', reference: 'x402 offer-and-receipt extension v1.0, sections 4.2 and 5.2', severity: 'critical', appliesTo: 'paid' },
  { id: 'ORC-NET-001', title: 'CAIP-2 network', requires: 'The payload network is a CAIP-2 chain id.', reference: 'x402 offer-and-receipt extension v1.0, sections 4.2 and 5.2 (network)', severity: 'major', appliesTo: 'paid' },
  { id: 'ORC-AMT-001', title: 'Atomic-unit amount', requires: 'An offer amount is a string of a non-negative integer in atomic units.', reference: 'x402 offer-and-receipt extension v1.0, section 4.2 (amount)', severity: 'major', appliesTo: 'paid' },
  { id: 'ORC-CON-001', title: 'Consistent with the requirements', requires: 'The payload agrees with the supplied reference: an offer with its PaymentRequirements (scheme, network, asset, payTo, amount) and resource URL; a receipt with the offer or requirements (network, resourceUrl) and the expected payer.', reference: 'x402 offer-and-receipt extension v1.0, sections 4.1.1 and 5.4', severity: 'critical', appliesTo: 'paid' },
  { id: 'ORC-SIG-001', title: 'Signature verifies', requires: 'eip712: the EIP-712 signature recovers to an address, and to the supplied signer address when one is supplied (without one, a recoverable signature is not-provided and an unrecoverable one fails); jws: the signature verifies with the supplied key (EdDSA Ed25519 or ES256K).', reference: 'x402 offer-and-receipt extension v1.0, sections 3.1, 4.3 and 5.3', severity: 'critical', appliesTo: 'paid' },
];

export function conformanceStandardDocument(): JsonObject {
  return {
    version: CONFORMANCE_STANDARD_VERSION,
    ruleset: { ...CONFORMANCE_RULESET },
    title: 'x402 v2 conformance standard of the bureau',
    statuses: {
      pass: 'the evidence shows the requirement met',
      fail: 'the evidence shows the requirement broken; the audit quotes what it saw',
      'not-provided': 'the transcript does not carry the evidence this check needs; not counted in the score',
    },
    score: 'passed / (passed + failed), over the checks that could be assessed, rounded to 4 decimals',
    outcomes: {
      CONFORMANT: 'no check failed and at least one was assessed',
      'NON-CONFORMANT': 'at least one check failed; defects lists their ids',
      'INSUFFICIENT-DATA': 'no check could be assessed',
    },
    headerNames: 'case-insensitive, as in HTTP',
    checks: AUDIT_CHECKS.map((c) => ({ ...c })),
    receiptCheck: { version: RECEIPT_CHECK_STANDARD_VERSION, ruleset: { ...RECEIPT_CHECK_RULESET }, checks: RECEIPT_CHECKS.map((c) => ({ ...c })) },
  };
}
