import { readFileSync } from 'node:fs';
import type { CommandResult } from '../../../kernel/operation.ts';
import { once } from '../../../kernel/once.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { indexAdvisories, summariseAdvisoryFile, type AdvisorySet, type AdvisorySetSummary } from './advisory-set.ts';
import { assessDependencyRisk } from './engine.ts';
import type { DependencyRiskInput } from './input.ts';

/** The exact bytes shipped in the repository: their SHA-256 is the one every record cites. */
export const ADVISORY_FILE_URL = new URL('./data/advisories.osv.json', import.meta.url);
const bytes = readFileSync(ADVISORY_FILE_URL);

/** The shipped set, validated and indexed at its first use (the engine thread's first call), not at every start. */
export const shippedAdvisories = once((): AdvisorySet => indexAdvisories(bytes.toString('utf8'), sha256Hex(bytes)));

/** What the catalogue entry says of the shipped set (data.test.ts holds it to the index). */
export const SHIPPED_ADVISORIES_SUMMARY: AdvisorySetSummary = summariseAdvisoryFile(bytes.toString('utf8'));

/** The engine over the advisories shipped with the service, as an engine thread runs it (operation.ts). */
export function assessWithShippedData(input: DependencyRiskInput, now: number): CommandResult {
  return { record: assessDependencyRisk(input, now, shippedAdvisories()) };
}
