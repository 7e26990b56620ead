import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { redactPii, type PiiRedactInput } from './engine.ts';

const run = (input: PiiRedactInput) => {
  const { record, beside } = redactPii(input, 1_767_225_600);
  return { result: record['utility_result'] as JsonObject & { redactions: JsonObject[]; rejected: JsonObject[] }, output: beside!['output'] as string };
};

describe('PII redaction', () => {
  it('redacts a valid card number and IBAN, and leaves ones whose checksum fails, listing them', () => {
    const { result, output } = run({ text: 'Card 4111 1111 1111 1111, bad 4111 1111 1111 1112. IBAN GB82 WEST 1234 5698 7654 32, bad GB82 WEST 1234 5698 7654 33.' });
    expect(output).toBe('Card <CREDIT_CARD>, bad 4111 1111 1111 1112. IBAN <IBAN_CODE>, bad GB82 WEST 1234 5698 7654 33.');
    expect(result.redactions.map((r) => [r['type'], r['checksum']])).toEqual([['CREDIT_CARD', 'valid'], ['IBAN_CODE', 'valid']]);
    expect(result.rejected.map((r) => [r['type'], r['reason']])).toEqual([
      ['CREDIT_CARD', 'the Luhn check digit does not match'],
      ['IBAN_CODE', 'the ISO 13616 mod-97 check (or the country length) fails'],
    ]);
  });

  it('gives offsets in code points, right after emoji', () => {
    const text = '😀😀 mail 👩‍💻 jane@example.com';
    const { result } = run({ text });
    const [email] = result.redactions;
    expect(email).toMatchObject({ type: 'EMAIL_ADDRESS', start: 12, end: 28 });
    expect(Array.from(text).slice(12, 28).join('')).toBe('jane@example.com');
    expect(text.indexOf('jane')).toBe(16); // the UTF-16 index, which the record does not use
  });

  it('EIP-55: a correct mixed-case address is redacted, a broken one is not, one case only carries no checksum', () => {
    const { result, output } = run({ text: 'a 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed b 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD c 0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359', entities: ['EVM_ADDRESS'] });
    expect(result.redactions.map((r) => r['checksum'])).toEqual(['valid', 'absent']);
    expect(output).toContain('b 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD');
  });

  it('never-issued SSNs, Bitcoin checksums, the BSN elfproef and the DNI letter decide', () => {
    const { output } = run({ text: 'SSN 078-05-1120 and 666-12-1234; BTC 1BoatSLRHtKNngkdXEeobR76b53LETtpyT and 1BoatSLRHtKNngkdXEeobR76b53LETtpyX; BSN 111222333 and BSN 111222334; DNI 12345678Z and 12345678A' });
    expect(output).toBe('SSN <US_SSN> and 666-12-1234; BTC <BITCOIN_ADDRESS> and 1BoatSLRHtKNngkdXEeobR76b53LETtpyX; BSN <NL_BSN> and BSN 111222334; DNI <ES_NIF> and 12345678A');
  });

  it('names only from the list, and says so; dates only with birth context', () => {
    const withNames = run({ text: 'Jane Roe met John Doe, born 1980-03-12; meeting 2026-01-05.', names: ['Jane Roe'] });
    expect(withNames.output).toBe('<PERSON> met John Doe, born <DATE_OF_BIRTH>; meeting 2026-01-05.');
    const without = run({ text: 'Jane Roe', entities: ['PERSON'] });
    expect(without.result['limitations']).toContain('person names are not detected: that needs a model; pass the names to redact in `names`');
  });

  it('pseudonyms are keyed HMACs: stable under one key, different under another; the key is nowhere in the record', () => {
    const text = 'jane@example.com and jane@example.com';
    const a = run({ text, mode: 'pseudonym', pseudonym_key: 'key-one-0123456789' });
    const b = run({ text, mode: 'pseudonym', pseudonym_key: 'key-two-0123456789' });
    const [first, second] = a.output.split(' and ');
    expect(first).toBe(second);
    expect(first).toMatch(/^<EMAIL_ADDRESS:[0-9a-f]{16}>$/);
    expect(b.output.split(' and ')[0]).not.toBe(first);
    expect(JSON.stringify(a.result)).not.toContain('key-one');
  });
});
