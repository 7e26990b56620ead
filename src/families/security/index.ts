import { complianceRecord } from '../../kernel/route-kit/records.ts';
import { plannedOperation } from '../../kernel/route-kit/planned.ts';
import { attestationReadBack } from '../../kernel/route-kit/read-back.ts';
import { defineFamily, type Route } from '../../kernel/operation.ts';
import { containmentRoutes } from './containment-register/operation.ts';
import { budgetPreflightRoutes } from './budget-preflight/operation.ts';
import { dependencyRiskRoutes } from './dependency-risk/operation.ts';
import { redteamRoutes } from './redteam-scan/operation.ts';
import { threatModelRoutes } from './threatmodel/operation.ts';
import { bodyVerifyParams, param, parseIntegerParam, parseJsonParam, rebuildFromBody, verifyRoute } from '../../kernel/route-kit/verify-route.ts';

const routes: Route[] = [
  ...budgetPreflightRoutes,
  plannedOperation({ id: 'compliance.check', method: 'POST', path: '/v1/compliance/check', family: 'security', priceUsd: '1.00', summary: 'Classifies an AI use case against EU AI Act Annex III risk classes and lists obligations in a signed snapshot.', keyFamily: 'compliance', signedMember: null, verifyPath: '/v1/compliance/verify' }),
  ...containmentRoutes,
  ...dependencyRiskRoutes,
  ...redteamRoutes,
  ...threatModelRoutes,

  verifyRoute({
    id: 'compliance.verify',
    method: 'GET',
    path: '/v1/compliance/verify',
    family: 'security',
    keyFamily: 'compliance',
    summary: 'Re-checks a compliance snapshot {kind, assessedAt, asset, assessment} (assessment as JSON).',
    params: { kind: param.text(), assessed_at: param.integer(), asset: param.text(), assessment: param.json() },
    rebuild: (p) =>
      complianceRecord({ kind: p.kind, assessedAt: parseIntegerParam(p.assessed_at), asset: p.asset, assessment: parseJsonParam('assessment', p.assessment) }),
  }),
];

export const securityFamily = defineFamily('security', routes);
