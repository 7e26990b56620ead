/**
 * The words of the PII redaction's contract: its types, modes and rule set. Apart from the
 * recognisers so that the catalogue entry can name them without loading the phone metadata.
 */
export const PII_TYPES = [
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'CREDIT_CARD',
  'IBAN_CODE',
  'US_SSN',
  'IP_ADDRESS',
  'EVM_ADDRESS',
  'BITCOIN_ADDRESS',
  'DATE_OF_BIRTH',
  'ES_NIF',
  'NL_BSN',
  'PERSON',
] as const;
export type PiiType = (typeof PII_TYPES)[number];

export const PII_MODES = ['mask', 'tag', 'pseudonym'] as const;
export type PiiMode = (typeof PII_MODES)[number];

export const PII_REDACT_RULESET = { id: 'pii-redact', version: '1' } as const;
