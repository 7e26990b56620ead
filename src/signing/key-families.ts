/**
 * The 22 signing-key families of spec section 4.5, and two of the transparency log (docs/verifying.md), each named after the path of its public-key
 * route. A family's name is also the HKDF info its seed is derived with: renaming one changes
 * its key, so these strings are part of the contract.
 */
export const KEY_FAMILIES = {
  veritrack: '/v1/veritrack/public-key',
  compliance: '/v1/compliance/public-key',
  'agent-reputation': '/v1/agent-reputation/public-key',
  'trusted-route': '/v1/agent-reputation/trusted-route/public-key',
  evidence: '/v1/evidence/public-key',
  memory: '/v1/memory/public-key',
  synthesis: '/v1/synthesis/public-key',
  containment: '/v1/containment/public-key',
  'verify-catalog': '/v1/verify-catalog/public-key',
  judge: '/v1/mcp/eval/judge/public-key',
  receipts: '/v1/receipts/public-key',
  identity: '/v1/identity/control-proof/public-key',
  readiness: '/v1/readiness/attest/public-key',
  data: '/v1/data/public-key',
  c2pa: '/v1/data/c2pa/public-key',
  utils: '/v1/utils/public-key',
  uptime: '/v1/mcp/verify/uptime/public-key',
  'tool-permission': '/v1/mcp/threatmodel/tool-permission/public-key',
  threatmodel: '/v1/security/threatmodel/public-key',
  redteam: '/v1/security/redteam/public-key',
  governance: '/v1/governance/public-key',
  budget: '/v1/budget/public-key',
  /** Signs the result log's checkpoints (C2SP signed notes); signs no result. */
  log: '/v1/log/public-key',
  /** Secures results re-issued as W3C Verifiable Credentials (eddsa-jcs-2022), as a did:key. */
  credentials: '/v1/credentials/public-key',
} as const;

export type KeyFamily = keyof typeof KEY_FAMILIES;

export const KEY_FAMILY_NAMES = Object.keys(KEY_FAMILIES) as KeyFamily[];

export function isKeyFamily(name: string): name is KeyFamily {
  return Object.hasOwn(KEY_FAMILIES, name);
}
