import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { codePointSpan, utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { fromThreadedEngine } from '../../../kernel/engine-threads/threaded-command.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';
import { PII_MODES, PII_REDACT_RULESET, PII_TYPES } from './vocabulary.ts';

const piiRedactInput = z
  .object({
    text: z.string().min(1).max(200_000),
    entities: z.array(z.enum(PII_TYPES)).max(PII_TYPES.length).optional().describe('The types to look for; all when absent or empty'),
    names: z.array(z.string().min(1).max(200)).max(500).optional().describe('Person names to redact (the only way names are detected)'),
    mode: z.enum(PII_MODES).optional().describe('mask (default): each code point becomes *; tag: <TYPE>; pseudonym: <TYPE_hmac> keyed by pseudonym_key'),
    pseudonym_key: z.string().min(16).max(512).optional().describe('Secret key of the HMAC-SHA256 pseudonyms (mode pseudonym); never recorded'),
    phone_region: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').optional().describe('Region of phone numbers written without +country code; without it only international numbers are found'),
  })
  .strict();

const auditEntry = z.object({
  type: z.enum(PII_TYPES),
  ...codePointSpan.shape,
  recogniser: z.string(),
  validator: z.string().nullable(),
  checksum_validated: z.boolean().nullable().describe('true/false for a checksum proper (Luhn, mod-97, EIP-55, base58check, bech32, mod 23, eleven test); null where the type has none'),
  context_word: z.string().optional(),
  replacement: z.string().optional(),
  reason: z.string().optional(),
});

const findings = {
  outcome: z.enum(['REDACTED', 'NOTHING-FOUND']),
  mode: z.enum(PII_MODES),
  offset_unit: z.literal('unicode-code-point'),
  entities_checked: z.array(z.enum(PII_TYPES)),
  names_supplied: z.number().int(),
  counts: z.record(z.string(), z.number().int()),
  audit: z.array(auditEntry),
  rejected: z.array(auditEntry).describe('Candidates whose validator failed: left in the text, offsets only'),
  pseudonym: z.object({ algorithm: z.literal('HMAC-SHA256'), form: z.string(), key: z.string() }).optional(),
  evidence_source: z.literal('caller-supplied'),
  limitations: z.array(z.string()),
};

const piiRedact = pricedOperation({
  id: 'utils.pii-redact',
  method: 'POST',
  path: '/v1/utils/pii-redact',
  family: 'documents',
  priceUsd: '0.25',
  summary: 'Returns redacted output with an audit list.',
  description: `Redacts personal data from text (rule ${PII_REDACT_RULESET.id}/${PII_REDACT_RULESET.version}) with recognisers in Presidio's pattern (pattern, context words, validator): email, phone (libphonenumber metadata), payment card (Luhn), IBAN (registry length and mod-97), US SSN (never-issued ranges refused), IPv4/IPv6, EVM (EIP-55) and Bitcoin (base58check, bech32/bech32m) addresses, dates of birth (with context words), Spanish DNI/NIE (mod 23) and Dutch BSN (eleven test, with context words). A candidate whose checksum fails is not redacted as its type (it is listed in rejected). Person names only from the caller's names list. Modes: mask, tag, pseudonym (HMAC-SHA256 with the caller's key, never a plain hash; the key is never recorded). The audit list gives type, code-point offsets, recogniser, validator, checksum result and replacement, never the value. Outcome: REDACTED or NOTHING-FOUND. The redacted text travels beside the receipt as output.`,
  inputFrom: 'json',
  input: piiRedactInput,
  example: {
    text: 'Contact Jane Doe at jane.doe@example.com or +44 20 7946 0958. Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00.',
    names: ['Jane Doe'],
    mode: 'tag',
  },
  output: utilityReceiptResponse('utils.pii-redact', findings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  precheck(input) {
    if (input.mode === 'pseudonym' && input.pseudonym_key === undefined) {
      return { status: 422, error: 'pseudonym_key_required', message: 'mode "pseudonym" needs pseudonym_key: pseudonyms are an HMAC under your key, never a plain hash', outcome: 'NOT-PROVIDED', issues: [{ path: 'pseudonym_key', message: 'is required for mode "pseudonym"' }] };
    }
    return undefined;
  },
  // Asynchronous only because the phone metadata loads on first use; still free, before any quote.
  async precheckState(input) {
    if (input.phone_region === undefined) return undefined;
    const { isSupportedCountry } = await import('libphonenumber-js/max');
    if (isSupportedCountry(input.phone_region)) return undefined;
    return { status: 422, error: 'unknown_phone_region', message: `${input.phone_region} is not a region of the phone numbering metadata`, outcome: 'INVALID-INPUT', issues: [{ path: 'phone_region', message: 'is not a known phone region' }] };
  },
  // On an engine thread: phone numbers in 200,000 characters take the metadata seconds.
  command: fromThreadedEngine(moduleBeside(import.meta.url, 'data'), 'redactWithShippedData'),
  outputBeside: true,
});

export const piiRedactRoutes: Route[] = [piiRedact];
