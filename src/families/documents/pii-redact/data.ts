import { readFileSync } from 'node:fs';
import { sha256Hex } from '../../../signing/hash.ts';
import type { CommandResult } from '../../../kernel/operation.ts';
import { runPiiRedact, type PiiData, type PiiRedactInput } from './engine.ts';

/**
 * The pinned data of the PII recognisers, read once at module load (engines read no files):
 * the IBAN length of each country, as the SWIFT IBAN Registry publishes it.
 */

const bytes = readFileSync(new URL('./data/iban-lengths.json', import.meta.url));
const parsed = JSON.parse(bytes.toString('utf8')) as { lengths: Record<string, number> };

export const PII_DATA: PiiData = {
  ibanLengths: Object.freeze(parsed.lengths),
  dataset: { name: 'iban-lengths', version: 'swift-iban-registry-2026-11', sha256: sha256Hex(bytes), data_date: '2026-11-24' },
};

/** The engine over the data shipped with the service, as an engine thread runs it (operation.ts). */
export function redactWithShippedData(input: PiiRedactInput, now: number): CommandResult {
  return runPiiRedact(PII_DATA)(input, now);
}
