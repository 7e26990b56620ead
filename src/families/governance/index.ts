import { defineFamily } from '../../kernel/operation.ts';
import { bureauAudit } from './bureau-audit/operation.ts';
import { bureauCorpusReadModel } from './bureau-corpus/corpus.ts';
import { bureauCorpus } from './bureau-corpus/routes.ts';
import { bureauReputation } from './bureau-reputation/operation.ts';
import { conformanceStandard } from './conformance-standard/routes.ts';
import { receiptCheck } from './receipt-check/operation.ts';
import { spendGovernor } from './spend-governor/operation.ts';

/** Governance: the x402 conformance bureau and the spend governor, one line per operation (docs/adding-an-operation.md). */
export const governanceFamily = defineFamily('governance', [...bureauAudit, ...receiptCheck, ...bureauReputation, ...spendGovernor, ...bureauCorpus, ...conformanceStandard], [], [bureauCorpusReadModel]);
