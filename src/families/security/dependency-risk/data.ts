import { readFileSync } from 'node:fs';
import { sha256Hex } from '../../../signing/hash.ts';
import { indexAdvisories, type AdvisorySet } from './advisory-set.ts';

/** The exact bytes shipped in the repository: their SHA-256 is the one every record cites. */
export const ADVISORY_FILE_URL = new URL('./data/advisories.osv.json', import.meta.url);
const bytes = readFileSync(ADVISORY_FILE_URL);

export const ADVISORIES: AdvisorySet = indexAdvisories(bytes.toString('utf8'), sha256Hex(bytes));
