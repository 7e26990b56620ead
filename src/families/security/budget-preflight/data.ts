import { readFileSync } from 'node:fs';
import { sha256Hex } from '../../../signing/hash.ts';
import { indexDeployments, type UsdcTable } from './deployments.ts';

/** The exact bytes shipped: their SHA-256 is the one every record cites. */
const bytes = readFileSync(new URL('./data/usdc-deployments.json', import.meta.url));

export const USDC_DEPLOYMENTS: UsdcTable = indexDeployments(bytes.toString('utf8'), sha256Hex(bytes));
