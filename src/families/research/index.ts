import { financeEvidence } from './finance-evidence/operation.ts';
import { plannedOperation } from '../../kernel/route-kit/planned.ts';
import { defineFamily, type Route } from '../../kernel/operation.ts';
import { synthesisVerdict } from './synthesis-verdict/operation.ts';
import { attestedBriefRoutes } from './attested-brief/operation.ts';

const routes: Route[] = [
  ...financeEvidence,
  ...attestedBriefRoutes,
  plannedOperation({ id: 'signed-research', method: 'GET', path: '/v1/signed-research', family: 'research', priceUsd: '0.50', inputFrom: 'query', summary: "Signed research on a topic (query parameter topic, default 'quant research').", keyFamily: 'synthesis', signedMember: 'evidenceCore' }),
  ...synthesisVerdict,
];

export const researchFamily = defineFamily('research', routes);
