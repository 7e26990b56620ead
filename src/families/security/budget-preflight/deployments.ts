import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { sha256Hex } from '../../../signing/hash.ts';
import type { UsdcDeployments } from './engine.ts';

const deploymentsSchema = z.object({
  name: z.string(),
  version: z.string(),
  data_date: z.iso.date(),
  sources: z.array(z.string()),
  deployments: z.array(z.object({ network: z.string().regex(/^eip155:\d+$/), chain: z.string(), address: z.string().regex(/^0x[0-9a-fA-F]{40}$/), eip712_name: z.string(), eip712_version: z.string(), testnet: z.boolean() }).strict()),
  x402_v1_network_names: z.record(z.string(), z.string()),
});

/** The curated table, read once at start; its SHA-256 is of the exact bytes shipped. */
const bytes = readFileSync(new URL('./data/usdc-deployments.json', import.meta.url));
export const USDC_DEPLOYMENTS: z.infer<typeof deploymentsSchema> & UsdcDeployments = deploymentsSchema.parse(JSON.parse(bytes.toString('utf8')));
export const USDC_DEPLOYMENTS_REF = { name: USDC_DEPLOYMENTS.name, version: USDC_DEPLOYMENTS.version, sha256: sha256Hex(bytes), data_date: USDC_DEPLOYMENTS.data_date };
