import { createRequire } from 'node:module';
import type * as NobleCurvesSecp256k1 from '@noble/curves/secp256k1.js';
import { once } from './once.ts';

/**
 * @noble/curves' secp256k1, loaded at its first use: about 25 ms of every start otherwise, and
 * only the offline checks of Ethereum signatures (identity, ownership and agent proofs, offer
 * receipts) and the payment path's fallback where libsecp256k1 cannot load use it. Loaded by
 * require() because those checks are synchronous; Node (>= 20.19) loads an ES module that way.
 */
export const nobleSecp256k1 = once(() => (createRequire(import.meta.url)('@noble/curves/secp256k1.js') as typeof NobleCurvesSecp256k1).secp256k1);
