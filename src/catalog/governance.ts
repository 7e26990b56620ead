import { plannedFreeRoute, plannedOperation } from './planned.ts';
import type { Route } from './types.ts';

export const governanceRoutes: Route[] = [
  plannedOperation({ id: 'bureau.audit', method: 'POST', path: '/v1/bureau/audit', family: 'governance', priceUsd: '0.25', summary: 'Full conformance audit of an endpoint.', keyFamily: 'governance', signedMember: 'evidenceCore', verifyPath: '/v1/bureau/verify' }),
  plannedOperation({ id: 'bureau.receipt-check', method: 'POST', path: '/v1/bureau/receipt-check', family: 'governance', priceUsd: '0.05', summary: "Conformance check of an issuer's receipt or offer.", keyFamily: 'governance', signedMember: 'evidenceCore', verifyPath: '/v1/bureau/verify' }),
  plannedOperation({ id: 'bureau.reputation', method: 'POST', path: '/v1/bureau/reputation', family: 'governance', priceUsd: '0.10', summary: 'Reputation from signed observation history.', keyFamily: 'governance', signedMember: 'evidenceCore', verifyPath: '/v1/bureau/verify' }),
  plannedOperation({ id: 'governance.reserve', method: 'POST', path: '/v1/governance/reserve', family: 'governance', priceUsd: '0.02', summary: 'Atomic reserved lease (spend governor).', keyFamily: 'governance', signedMember: 'evidenceCore', verifyPath: '/v1/governance/verify' }),
  plannedOperation({ id: 'governance.settle', method: 'POST', path: '/v1/governance/settle', family: 'governance', priceUsd: '0.02', summary: 'Settles a lease; idempotent.', keyFamily: 'governance', signedMember: 'evidenceCore', verifyPath: '/v1/governance/verify' }),

  plannedFreeRoute({ id: 'bureau.anchor.verify', method: 'POST', path: '/v1/bureau/anchor/verify', family: 'governance', summary: 'Re-checks a corpus anchor and an inclusion proof.' }),
  plannedFreeRoute({ id: 'bureau.verify', method: 'POST', path: '/v1/bureau/verify', family: 'governance', summary: 'Re-checks a bureau result.' }),
  plannedFreeRoute({ id: 'governance.verify', method: 'POST', path: '/v1/governance/verify', family: 'governance', summary: 'Re-checks a lease or settle receipt.' }),
  plannedFreeRoute({ id: 'governance.state', method: 'GET', path: '/v1/governance/state/:agent_id', family: 'governance', summary: "An agent's budget, reserved, spent and open leases." }),
  plannedFreeRoute({ id: 'governance.standard', method: 'GET', path: '/v1/governance/standard', family: 'governance', summary: "The spend governor's rules." }),
  plannedFreeRoute({ id: 'bureau.standard', method: 'GET', path: '/v1/bureau/standard', family: 'governance', summary: 'The versioned x402 conformance standard.' }),
  plannedFreeRoute({ id: 'bureau.corpus', method: 'GET', path: '/v1/bureau/corpus', family: 'governance', summary: 'The audit corpus, paged, newest first.' }),
  plannedFreeRoute({ id: 'bureau.corpus.latest', method: 'GET', path: '/v1/bureau/corpus/latest', family: 'governance', summary: 'The newest audit of the corpus.' }),
  plannedFreeRoute({ id: 'bureau.defects', method: 'GET', path: '/v1/bureau/defects', family: 'governance', summary: 'Defect counts by check id.' }),
];
