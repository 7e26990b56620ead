import { readFileSync } from 'node:fs';
import type { CommandResult } from '../../../kernel/operation.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { indexAdvisories, type AdvisorySet } from './advisory-set.ts';
import { assessDependencyRisk } from './engine.ts';
import type { DependencyRiskInput } from './input.ts';

/** The exact bytes shipped in the repository: their SHA-256 is the one every record cites. */
export const ADVISORY_FILE_URL = new URL('./data/advisories.osv.json', import.meta.url);
const bytes = readFileSync(ADVISORY_FILE_URL);

export const ADVISORIES: AdvisorySet = indexAdvisories(bytes.toString('utf8'), sha256Hex(bytes));

/** The engine over the advisories shipped with the service, as an engine thread runs it (operation.ts). */
export function assessWithShippedData(input: DependencyRiskInput, now: number): CommandResult {
  return { record: assessDependencyRisk(input, now, ADVISORIES) };
}
