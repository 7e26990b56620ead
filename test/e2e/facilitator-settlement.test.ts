import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/payments/gateway.ts';
import type { Settler } from '../../src/payments/settlers/settler.ts';
import { createFacilitatorSettler } from '../../src/payments/settlers/facilitator.ts';
import type { LocalChain, TestAccount } from '../support/chain.ts';
import { startFacilitatorChain, type FacilitatorChain, type LocalFacilitator } from '../support/local-facilitator.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { ATTEST_PRICE_ATOMIC, attest, expectStoredReplay, nonceOf, paymentResponseOf, paymentStreamTypes, recordingPayer } from './paid-calls.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';

describe('SETTLEMENT=facilitator: the official x402 client pays through a local x402 facilitator', () => {
  let world: FacilitatorChain;
  let chain: LocalChain;
  let facilitator: LocalFacilitator;
  let service: TestService;
  let payer: TestAccount;
  let payTo: TestAccount;

  beforeAll(async () => {
    world = await startFacilitatorChain(5_000_000n);
    ({ chain, facilitator, payer, payTo } = world);
    service = await startTestService({ SETTLEMENT: 'facilitator', FACILITATOR_URL: facilitator.url, RPC_URL: chain.rpcUrl, PAY_TO: payTo.address });
  });
  afterAll(async () => {
    await service?.stop();
    await world?.stop();
  });

  it('moves exactly the price from the payer to PAY_TO on chain, and a replay moves nothing more', async () => {
    const client = recordingPayer(payer.privateKey);
    const [payerBefore, payToBefore] = await Promise.all([chain.usdcBalance(payer.address), chain.usdcBalance(payTo.address)]);

    const response = await attest(service.url, client.pay);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), ed25519Sig: expect.stringMatching(/^[0-9a-f]{128}$/) });

    const settlement = paymentResponseOf(response);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.status).toBe('success');
    // The facilitator submitted it and paid the gas; the service never held the funds.
    expect(receipt.from.toLowerCase()).toBe(chain.facilitator.address.toLowerCase());
    expect(facilitator.calls).toEqual({ verify: 1, settle: 1 });

    expect(await chain.usdcBalance(payer.address)).toBe(payerBefore - ATTEST_PRICE_ATOMIC);
    expect(await chain.usdcBalance(payTo.address)).toBe(payToBefore + ATTEST_PRICE_ATOMIC);

    expect(client.sentPayments).toHaveLength(1);
    const header = client.sentPayments[0]!;
    expect(await paymentStreamTypes(service.deps.store, payer.address, nonceOf(header))).toEqual(['PaymentAuthorized', 'PaymentSettled', 'ResultSigned']);
    const [, settled] = await service.deps.store.readStream(paymentStreamName(payer.address, nonceOf(header)));
    expect(settled?.data).toMatchObject({ mode: 'facilitator', transaction: settlement.transaction, demo: false, amount: '250000' });

    // The same payment header again: the stored answer, no second settlement anywhere.
    await expectStoredReplay({ serviceUrl: service.url, header, body, transaction: settlement.transaction, chain, payer: payer.address });
    expect(facilitator.calls.settle).toBe(1);
    expect(await chain.usdcBalance(payer.address)).toBe(payerBefore - ATTEST_PRICE_ATOMIC);
  });

  it('with RPC_URL, a crash after the facilitator settled is resolved from the chain, never settled twice', async () => {
    const crashPayer = await chain.newAccount();
    await chain.mintUsdc(crashPayer.address, 1_000_000n);
    const client = recordingPayer(crashPayer.privateKey);
    const running = service.deps.payments;
    const real = createFacilitatorSettler(service.deps.settings);
    const crashing: Settler = {
      ...real,
      async settle(payment) {
        await real.settle(payment);
        throw new Error('simulated crash after the facilitator settled, before PaymentSettled');
      },
    };
    service.deps.payments = createGateway(crashing);
    const settlesBefore = facilitator.calls.settle;
    expect((await attest(service.url, client.pay)).status).toBe(500);
    const header = client.sentPayments[0]!;
    const transfers = await chain.usdcTransfers(crashPayer.address);
    expect(transfers).toHaveLength(1);

    service.deps.payments = running;
    const retried = await attest(service.url, fetch, { 'PAYMENT-SIGNATURE': header });
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(paymentResponseOf(retried).transaction).toBe(transfers[0]!.transactionHash);
    expect(facilitator.calls.settle).toBe(settlesBefore + 1);
    expect(await chain.usdcTransfers(crashPayer.address)).toEqual(transfers);
    expect(await chain.usdcBalance(crashPayer.address)).toBe(1_000_000n - ATTEST_PRICE_ATOMIC);
    expect(await paymentStreamTypes(service.deps.store, crashPayer.address, nonceOf(header))).toEqual(['PaymentAuthorized', 'PaymentSettled', 'ResultSigned']);
  });

  it('refuses with 402 and charges nothing when the facilitator finds no funds', async () => {
    const broke = await chain.newAccount();
    const client = recordingPayer(broke.privateKey);
    const response = await attest(service.url, client.pay);
    expect(response.status).toBe(402);
    expect(await chain.usdcTransfers(broke.address)).toEqual([]);
  });
});
