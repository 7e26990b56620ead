import { z } from 'zod';
import { KEY_FAMILIES, KEY_FAMILY_NAMES, type KeyFamily } from '../signing/key-families.ts';
import { freeRoute, type Family, type FreeRoute } from '../kernel/operation.ts';

/** Which product family each key signs for, so the documents can group the key routes. */
const FAMILY_OF_KEY: Record<KeyFamily, Family> = {
  veritrack: 'trust',
  compliance: 'security',
  'agent-reputation': 'trust',
  'trusted-route': 'trust',
  evidence: 'forensics',
  memory: 'agent',
  synthesis: 'research',
  containment: 'security',
  'verify-catalog': 'trust',
  judge: 'agent',
  receipts: 'trust',
  identity: 'trust',
  readiness: 'trust',
  data: 'forensics',
  c2pa: 'forensics',
  utils: 'documents',
  uptime: 'agent',
  'tool-permission': 'agent',
  threatmodel: 'security',
  redteam: 'security',
  governance: 'governance',
  budget: 'security',
  log: 'trust',
  credentials: 'trust',
};

export const publicKeySchema = z.object({
  family: z.string(),
  algorithm: z.literal('Ed25519'),
  publicKey: z.string().regex(/^[0-9a-f]{64}$/).describe('Raw 32-byte Ed25519 public key, lowercase hex'),
  keyId: z.string().regex(/^[0-9a-f]{16}$/).describe('First 16 hex characters of SHA-256 of the raw public key'),
});

export const publicKeyRoutes: FreeRoute[] = KEY_FAMILY_NAMES.map((family) =>
  freeRoute({
    id: `public-key.${family}`,
    method: 'GET',
    path: KEY_FAMILIES[family],
    family: FAMILY_OF_KEY[family],
    summary: `Ed25519 public key of the ${family} signatures.`,
    description: `The raw Ed25519 public key (hex) that verifies every ${family} signature, offline or on the free verify route.`,
    output: publicKeySchema,
    async handle(_input, deps) {
      const key = deps.keyring.publicKey(family);
      return {
        body: { family, algorithm: 'Ed25519', publicKey: key.publicKeyHex, keyId: key.keyId },
        headers: { 'Cache-Control': 'public, max-age=300' },
      };
    },
  }),
);
