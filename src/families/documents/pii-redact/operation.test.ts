import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson } from '../../../../test/support/http.ts';
import { expectReceiptHolds, payUtility } from '../../../../test/support/utility-receipts.ts';
import { piiRedactOperation } from './operation.ts';

const service = useTestService();

describe('PII redaction over HTTP', () => {
  it('quotes with 402; pseudonym mode without a key is refused with 422 before the quote', async () => {
    expect((await postJson(`${service.url}/v1/utils/pii-redact`, piiRedactOperation.example)).status).toBe(402);
    expect(await postJson(`${service.url}/v1/utils/pii-redact`, { text: 'x', mode: 'pseudonym' })).toMatchObject({ status: 422, body: { error: 'pseudonym_key_required', issues: [{ path: 'pseudonym_key' }] } });
  });

  it('is paid, answers the redacted text beside the receipt, and re-checks with its output; a changed byte fails', async () => {
    const paid = await payUtility(service, 'utils.pii-redact', piiRedactOperation.example);
    expect(paid.output).toBe('Contact <PERSON> at <EMAIL_ADDRESS> or <PHONE_NUMBER>. Card <CREDIT_CARD>, IBAN <IBAN_CODE>.');
    await expectReceiptHolds(service, paid);
  });
});
