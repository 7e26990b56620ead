import { describe, it } from 'vitest';
import { deciderSpec } from '../../../../test/support/decider-spec.ts';
import { FORENSICS_EVENT_TYPES, type ForensicsEvent } from '../events.ts';
import { firstRecordWins } from './decider.ts';

const sealed = (sealedAt: number): ForensicsEvent => ({
  type: FORENSICS_EVENT_TYPES.evidenceSealed,
  data: { entryId: 'a'.repeat(64), sealed: { kind: 'evidence.entry', entryId: 'a'.repeat(64), sealedAt } },
});

const { given } = deciderSpec(firstRecordWins);

describe('first record wins (content-addressed records)', () => {
  it('given an empty stream, when a record is written, then it is the record', () => {
    given([]).when(sealed(100)).then([sealed(100)]);
  });

  it('given a record, when the same content comes again later, then nothing is written and the first stays', () => {
    given([sealed(100)]).when(sealed(200)).thenNothing();
  });
});
