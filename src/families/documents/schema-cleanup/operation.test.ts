import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson } from '../../../../test/support/http.ts';
import { expectReceiptHolds, payUtility } from '../../../../test/support/utility-receipts.ts';
import { schemaCleanupOperation } from './operation.ts';

const service = useTestService();

describe('schema cleanup over HTTP', () => {
  it('quotes with 402 and refuses an empty input with 422', async () => {
    expect((await postJson(`${service.url}/v1/utils/schema-cleanup`, schemaCleanupOperation.example)).status).toBe(402);
    expect(await postJson(`${service.url}/v1/utils/schema-cleanup`, { input: '' })).toMatchObject({ status: 422, body: { issues: [{ path: 'input' }] } });
  });

  it('is paid, answers the clean rows beside a receipt that binds them, and re-checks on GET /v1/utils/verify; a changed output byte fails', async () => {
    const paid = await payUtility(service, 'utils.schema-cleanup', schemaCleanupOperation.example);
    expect(JSON.parse(paid.output)).toEqual([
      { invoice_no: 'INV-1', issue_date: '2025-12-31', amount: 1200.5, paid: true },
      { invoice_no: 'INV-2', issue_date: '2026-01-15', amount: 99, paid: false },
    ]);
    await expectReceiptHolds(service, paid);
  });
});
