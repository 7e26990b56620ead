import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { runAgainst } from '../../../../test/support/http.ts';

const service = useTestService();

describe('evidence query catalogue example', () => {
  it('asks for the entry the evidence-ingest example seals: NOT-FOUND before it, BOUND after it', async () => {
    const ingest = findOperation('evidence.ingest')!;
    const query = findOperation('evidence.query')!;
    expect((await runAgainst(service, query.id, query.example)).record).toMatchObject({ outcome: 'NOT-FOUND', found_count: 0 });
    const sealed = await runAgainst(service, ingest.id, ingest.example);
    expect((await runAgainst(service, query.id, query.example)).record).toMatchObject({ outcome: 'BOUND', found_count: 1, entries: [{ entryId: sealed.record.entryId }] });
  });
});
