import { financeEvidence } from './finance-evidence/operation.ts';
import { defineFamily, type Route } from '../../kernel/operation.ts';
import { synthesisVerdict } from './synthesis-verdict/operation.ts';
import { attestedBriefRoutes } from './attested-brief/operation.ts';
import { signedResearchRoutes } from './signed-research/operation.ts';

const routes: Route[] = [
  ...financeEvidence,
  ...attestedBriefRoutes,
  ...signedResearchRoutes,
  ...synthesisVerdict,
];

export const researchFamily = defineFamily('research', routes);
