import { z } from 'zod';
import { conformanceStandardDocument } from './standard.ts';
import { freeRoute, type Route } from '../../../kernel/operation.ts';

const bureauStandard = freeRoute({
    id: 'bureau.standard',
    method: 'GET',
    path: '/v1/bureau/standard',
    family: 'governance',
    summary: 'The versioned x402 conformance standard.',
    description: 'Every check of the bureau: id, what it requires, where the x402 v2 specification requires it, severity; and the receipt-check standard.',
    output: z.looseObject({ version: z.string(), checks: z.array(z.looseObject({ id: z.string() })) }),
    async handle() {
      return { body: conformanceStandardDocument() };
    },
  });

export const conformanceStandard: Route[] = [bureauStandard];
