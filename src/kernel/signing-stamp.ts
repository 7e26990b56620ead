import type { CommandResult } from './operation.ts';
import type { JsonObject, JsonValue } from '../signing/rfc8785.ts';

/**
 * The record's signing stamp: its one top-level integer member named `<verb>At` (attestedAt,
 * servedAt, probedAt, ...). Undefined when it has none or several: the window is then left to
 * the audit and the result log, which know the signing time exactly.
 */
export function signingStampOf(record: JsonValue): number | undefined {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const stamps = Object.entries(record).filter(([name, value]) => /^[a-z][A-Za-z]*At$/.test(name) && Number.isInteger(value));
  return stamps.length === 1 ? (stamps[0]![1] as number) : undefined;
}

/**
 * The result of a command that answers a record it stored earlier (the first record kept for
 * everyone who sends the same content): sealed with the key of the record's signing stamp, the
 * key the verify routes hold it to, which gives the signature first given. With the current key,
 * such a record would fail its own verify route after a key rotation.
 */
export function storedRecordResult(record: JsonObject, beside?: JsonObject): CommandResult {
  const firstSignedAt = signingStampOf(record);
  return { record, ...(beside && Object.keys(beside).length > 0 ? { beside } : {}), ...(firstSignedAt === undefined ? {} : { firstSignedAt }) };
}
