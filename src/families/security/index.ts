import { complianceRecord } from '../../kernel/route-kit/records.ts';
import { plannedOperation } from '../../kernel/route-kit/planned.ts';
import { attestationReadBack } from '../../kernel/route-kit/read-back.ts';
import { defineFamily, type Route } from '../../kernel/operation.ts';
import { budgetPreflightRoutes } from './budget-preflight/operation.ts';
import { dependencyRiskRoutes } from './dependency-risk/operation.ts';
import { bodyVerifyParams, param, parseIntegerParam, parseJsonParam, rebuildFromBody, verifyRoute } from '../../kernel/route-kit/verify-route.ts';

const routes: Route[] = [
  ...budgetPreflightRoutes,
  plannedOperation({ id: 'compliance.check', method: 'POST', path: '/v1/compliance/check', family: 'security', priceUsd: '1.00', summary: 'Classifies an AI use case against EU AI Act Annex III risk classes and lists obligations in a signed snapshot.', keyFamily: 'compliance', signedMember: null, verifyPath: '/v1/compliance/verify' }),
  plannedOperation({ id: 'containment.register', method: 'POST', path: '/v1/containment/register', family: 'security', priceUsd: '0.25', summary: 'Attests readiness and relays signed notify/throttle rules.', keyFamily: 'containment', signedMember: 'evidenceCore', verifyPath: '/v1/containment/verify' }),
  ...dependencyRiskRoutes,
  plannedOperation({ id: 'security.redteam.authorized-scan', method: 'POST', path: '/v1/security/redteam/authorized-scan', family: 'security', priceUsd: '0.25', summary: 'Compliance gate: refuses any assessment without a well-formed authorization proof; refusals are signed; no live probe.', keyFamily: 'redteam', signedMember: 'evidenceCore', verifyPath: '/v1/security/redteam/recheck' }),
  plannedOperation({ id: 'security.threatmodel', method: 'POST', path: '/v1/security/threatmodel', family: 'security', priceUsd: '0.25', summary: 'Threat model of one tool manifest; persisted under attestation_id.', keyFamily: 'threatmodel', signedMember: 'evidenceCore', verifyPath: '/v1/security/threatmodel/verify/{attestation_id}' }),

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
  verifyRoute({ id: 'containment.verify', method: 'GET', path: '/v1/containment/verify', family: 'security', keyFamily: 'containment', summary: 'Re-checks a containment registration (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'security.redteam.recheck', method: 'POST', path: '/v1/security/redteam/recheck', family: 'security', keyFamily: 'redteam', summary: 'Re-checks a red-team scan result or signed refusal (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  attestationReadBack({ id: 'security.threatmodel.read-back', path: '/v1/security/threatmodel/verify/:attestation_id', family: 'security', keyFamily: 'threatmodel', streamPrefix: 'threatmodel', eventType: 'ThreatModelRecorded', summary: 'Read-back of a persisted threat model.' }),
];

export const securityFamily = defineFamily('security', routes);
