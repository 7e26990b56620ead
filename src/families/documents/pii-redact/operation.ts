import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { utilityResponse } from '../utility-receipt.ts';
import { redactPii } from './engine.ts';
import { ENTITY_TYPES } from './recognisers.ts';

const input = z
  .object({
    text: z.string().min(1).max(400_000),
    entities: z.array(z.enum(ENTITY_TYPES)).min(1).max(ENTITY_TYPES.length).optional().describe('Which types to look for; default all'),
    names: z.array(z.string().min(1).max(200)).max(500).optional().describe('Person names to redact (names are not detected otherwise)'),
    mode: z.enum(['mask', 'tag', 'pseudonym']).optional().describe('Default tag: <EMAIL_ADDRESS>; mask: asterisks; pseudonym: <TYPE:hmac> with pseudonym_key'),
    pseudonym_key: z.string().min(16, 'must be at least 16 characters').max(512).optional().describe('Required for mode pseudonym; never recorded'),
  })
  .strict();

export const piiRedactOperation = pricedOperation({
  id: 'utils.pii-redact',
  method: 'POST',
  path: '/v1/utils/pii-redact',
  family: 'documents',
  priceUsd: '0.25',
  summary: 'Returns redacted output with an audit list.',
  description:
    'Recognisers in the pattern + context + validator scheme: email, phone (libphonenumber metadata), payment card (Luhn), IBAN (ISO 13616 mod-97 and country length), US SSN (never-issued ranges refused), IPv4 and IPv6, EVM addresses (EIP-55) and Bitcoin addresses (Base58Check, bech32), dates of birth with context words, Dutch BSN (elfproef) and Spanish DNI/NIE (control letter). A candidate whose checksum fails is not redacted and is listed. Person names only from `names`. Offsets in code points.',
  inputFrom: 'json',
  input,
  example: { text: 'Contact Jane Roe at jane.roe@example.com or +44 20 7946 0958. Card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32.', names: ['Jane Roe'], mode: 'tag' },
  output: utilityResponse('utils.pii-redact', { outcome: z.enum(['REDACTED', 'NONE-FOUND']), redactions: z.array(z.looseObject({})), rejected: z.array(z.looseObject({})), limitations: z.array(z.string()) }),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  precheck(i) {
    if (i.mode === 'pseudonym' && !i.pseudonym_key) return { status: 422, error: 'pseudonym_key_required', message: 'mode pseudonym needs pseudonym_key: pseudonyms are keyed HMACs, never plain hashes', outcome: 'INVALID-INPUT', issues: [{ path: 'pseudonym_key', message: 'is required when mode is pseudonym' }] };
    return undefined;
  },
  command: { execute: async (i, ctx) => redactPii(i, ctx.now) },
});

export const piiRedactRoutes: Route[] = [piiRedactOperation];
