import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson } from '../../../../test/support/http.ts';
import { expectReceiptHolds, payUtility } from '../../../../test/support/utility-receipts.ts';
import { invoiceExtractOperation, UBL_EXAMPLE } from './operation.ts';

const service = useTestService();

describe('invoice extraction over HTTP', () => {
  it('quotes with 402; two inputs at once or a DOCTYPE are refused with 422', async () => {
    expect((await postJson(`${service.url}/v1/utils/invoice-extract`, invoiceExtractOperation.example)).status).toBe(402);
    expect((await postJson(`${service.url}/v1/utils/invoice-extract`, { text: 'x', ubl_xml: 'y' })).status).toBe(422);
    const doctype = await postJson(`${service.url}/v1/utils/invoice-extract`, { ubl_xml: `<!DOCTYPE x [<!ENTITY a "aaaa">]>${UBL_EXAMPLE.slice(UBL_EXAMPLE.indexOf('<Invoice'))}` });
    expect(doctype).toMatchObject({ status: 422, body: { error: 'xml_doctype_refused' } });
  });

  it('is paid and re-checked with its output; a changed byte fails', async () => {
    const paid = await payUtility(service, 'utils.invoice-extract', invoiceExtractOperation.example);
    expect(JSON.parse(paid.output)).toMatchObject({ terms: { invoice_number: { value: 'INV-2026-0042' } } });
    await expectReceiptHolds(service, paid);
  });
});
