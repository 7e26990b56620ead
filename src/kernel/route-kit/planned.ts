import { notBuiltInput, notBuiltOutput } from './schemas.ts';
import { NotImplementedError } from '../run-operation.ts';
import { freeRoute, pricedOperation, type FreeRoute, type PricedOperation } from '../operation.ts';

type PlannedFacts = Pick<
  PricedOperation,
  'id' | 'method' | 'path' | 'family' | 'priceUsd' | 'summary' | 'keyFamily' | 'signedMember' | 'verifyPath'
> & { inputFrom?: PricedOperation['inputFrom']; description?: string };

/**
 * A catalogued operation whose engine is not built yet: routed, priced and documented, but it
 * answers 501 `not_implemented` and is never quoted, so nobody can pay for it.
 */
export function plannedOperation(facts: PlannedFacts): PricedOperation {
  return pricedOperation({
    inputFrom: 'json',
    description: `${facts.summary} Not built yet: answers 501 not_implemented and is never quoted.`,
    ...facts,
    input: notBuiltInput,
    example: {},
    output: notBuiltOutput,
  });
}

type PlannedFreeFacts = Pick<FreeRoute, 'id' | 'method' | 'path' | 'family' | 'summary'>;

/** A free route whose handler a later piece of work builds: documented, and answers 501. */
export function plannedFreeRoute(facts: PlannedFreeFacts): FreeRoute {
  return freeRoute({
    ...facts,
    description: `${facts.summary} Not built yet: answers 501 not_implemented.`,
    output: notBuiltOutput,
    planned: true,
    async handle() {
      throw new NotImplementedError(facts.id);
    },
  });
}
