import { agentRoutes } from './agent.ts';
import { documentsRoutes } from './documents.ts';
import { forensicsRoutes } from './forensics.ts';
import { governanceRoutes } from './governance.ts';
import { publicKeyRoutes } from './public-keys.ts';
import { researchRoutes } from './research.ts';
import { securityRoutes } from './security.ts';
import { serviceRoutes } from './service.ts';
import { trustRoutes } from './trust.ts';
import type { FreeRoute, PricedOperation, Route } from './types.ts';

/** THE operation catalogue: every route of the service, once. */
export const catalog: readonly Route[] = [
  ...serviceRoutes,
  ...governanceRoutes,
  ...trustRoutes,
  ...forensicsRoutes,
  ...securityRoutes,
  ...agentRoutes,
  ...documentsRoutes,
  ...researchRoutes,
  ...publicKeyRoutes,
];

export const pricedOperations = (): PricedOperation[] => catalog.filter((r): r is PricedOperation => r.kind === 'priced');
export const freeRoutes = (): FreeRoute[] => catalog.filter((r): r is FreeRoute => r.kind === 'free');
export const isBuilt = (r: Route): boolean => (r.kind === 'free' ? !r.planned : r.command !== undefined);

export function findOperation(id: string): PricedOperation | undefined {
  return pricedOperations().find((op) => op.id === id);
}
