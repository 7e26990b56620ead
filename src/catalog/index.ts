import { agentFamily } from '../families/agent/index.ts';
import { documentsFamily } from '../families/documents/index.ts';
import { forensicsFamily } from '../families/forensics/index.ts';
import { governanceFamily } from '../families/governance/index.ts';
import { researchFamily } from '../families/research/index.ts';
import { securityFamily } from '../families/security/index.ts';
import { trustFamily } from '../families/trust/index.ts';
import type { ChainRule } from '../kernel/audit-rule.ts';
import type { FamilyModule, FreeRoute, PricedOperation, ReadModel, Route } from '../kernel/operation.ts';
import { publicKeyRoutes } from './public-keys.ts';
import { transparencyRoutes } from './transparency-routes.ts';
import { credentialRoutes } from './credential-routes.ts';
import { verifierPageRoutes } from './verifier-page.ts';
import { keyHistoryRoute } from './key-history-route.ts';
import { createServiceRoutes } from './service.ts';

/** The 7 families of spec section 1, in the order the documents list them. */
export const families: readonly FamilyModule[] = [governanceFamily, trustFamily, forensicsFamily, securityFamily, agentFamily, documentsFamily, researchFamily];

/** THE operation catalogue: every route of the service, once. */
export const catalog: readonly Route[] = [...createServiceRoutes(() => catalog), ...families.flatMap((f) => f.routes), ...publicKeyRoutes, ...transparencyRoutes, ...credentialRoutes, ...verifierPageRoutes, keyHistoryRoute];

/** The views of the log the families' routes read, kept while the service runs. */
export const readModels: readonly ReadModel[] = families.flatMap((f) => f.readModels);

/** Every hash-chain rule of the audit, as the families declare them. */
export const auditRules: readonly ChainRule[] = families.flatMap((f) => f.auditRules);

export const pricedOperations = (): PricedOperation[] => catalog.filter((r): r is PricedOperation => r.kind === 'priced');
export const freeRoutes = (): FreeRoute[] => catalog.filter((r): r is FreeRoute => r.kind === 'free');
export const isBuilt = (r: Route): boolean => (r.kind === 'free' ? !r.planned : r.command !== undefined);

export function findOperation(id: string): PricedOperation | undefined {
  return pricedOperations().find((op) => op.id === id);
}
