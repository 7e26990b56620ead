import { defineFamily } from '../../kernel/operation.ts';
import { agentReputation } from './agent-reputation/operation.ts';
import { identityControlProof } from './identity-control-proof/operation.ts';
import { readiness } from './readiness/operation.ts';
import { receiptsMint } from './receipts-mint/operation.ts';
import { trustedRoute } from './trusted-route/operation.ts';
import { verifyCatalog } from './verify-catalog/operation.ts';
import { veritrack } from './veritrack/operation.ts';

/** Trust and Reputation: one line per operation (docs/adding-an-operation.md). */
export const trustFamily = defineFamily('trust', [...veritrack, ...receiptsMint, ...identityControlProof, ...readiness, ...agentReputation, ...trustedRoute, ...verifyCatalog]);
