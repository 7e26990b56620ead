import { defineFamily, type Route } from '../../kernel/operation.ts';
import { budgetPreflightRoutes } from './budget-preflight/operation.ts';
import { complianceRoutes } from './compliance-check/operation.ts';
import { containmentRoutes } from './containment-register/operation.ts';
import { dependencyRiskRoutes } from './dependency-risk/operation.ts';
import { redteamRoutes } from './redteam-scan/operation.ts';
import { threatModelRoutes } from './threatmodel/operation.ts';

const routes: Route[] = [...budgetPreflightRoutes, ...complianceRoutes, ...containmentRoutes, ...dependencyRiskRoutes, ...redteamRoutes, ...threatModelRoutes];

export const securityFamily = defineFamily('security', routes);
