import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson } from '../../../../test/support/http.ts';
import { expectReceiptHolds, payUtility } from '../../../../test/support/utility-receipts.ts';
import { translateDocOperation } from './operation.ts';

const service = useTestService();

describe('translate-doc over HTTP', () => {
  it('quotes with 402 and refuses a malformed language tag with 422', async () => {
    expect((await postJson(`${service.url}/v1/utils/translate-doc`, translateDocOperation.example)).status).toBe(402);
    expect(await postJson(`${service.url}/v1/utils/translate-doc`, { text: 'x', source_lang: 'english', target_lang: 'de' })).toMatchObject({ status: 422, body: { issues: [{ path: 'source_lang' }] } });
  });

  it('is paid and re-checked with its output; a changed byte fails', async () => {
    const paid = await payUtility(service, 'utils.translate-doc', translateDocOperation.example);
    expect(paid.output).toContain('Vielen Dank für Ihre Bestellung.');
    await expectReceiptHolds(service, paid);
  });
});
