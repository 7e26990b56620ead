import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/payments/gateway.ts';
import type { Settler } from '../../src/payments/settlers/settler.ts';
import { createOnchainSettler } from '../../src/payments/settlers/onchain.ts';
import { startLocalChain, type LocalChain, type TestAccount } from '../support/chain.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { ATTEST_PRICE_ATOMIC, attest, expectStoredReplay, nonceOf, paymentResponseOf, paymentStreamTypes, recordingPayer } from './paid-calls.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';

describe('SETTLEMENT=onchain: the official x402 client pays, the service submits the transfer itself', () => {
  let chain: LocalChain;
  let service: TestService;
  let payTo: TestAccount;

  beforeAll(async () => {
    chain = await startLocalChain();
    payTo = await chain.newAccount();
    service = await startTestService({ SETTLEMENT: 'onchain', RPC_URL: chain.rpcUrl, RELAYER_PRIVATE_KEY: chain.relayer.privateKey, PAY_TO: payTo.address });
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
  });

  async function fundedPayer(): Promise<TestAccount> {
    const payer = await chain.newAccount();
    await chain.mintUsdc(payer.address, 1_000_000n);
    return payer;
  }

  it('moves exactly the price from the payer to PAY_TO, relayed by the relayer key, and a replay moves nothing more', async () => {
    const payer = await fundedPayer();
    const client = recordingPayer(payer.privateKey);
    const payToBefore = await chain.usdcBalance(payTo.address);

    const response = await attest(service.url, client.pay);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);

    const settlement = paymentResponseOf(response);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(chain.relayer.address.toLowerCase());
    expect(await chain.usdcBalance(payer.address)).toBe(1_000_000n - ATTEST_PRICE_ATOMIC);
    expect(await chain.usdcBalance(payTo.address)).toBe(payToBefore + ATTEST_PRICE_ATOMIC);
    expect(await chain.usdcBalance(chain.relayer.address)).toBe(0n);

    const header = client.sentPayments[0]!;
    const [, settled] = await service.deps.store.readStream(paymentStreamName(payer.address, nonceOf(header)));
    expect(settled?.data).toMatchObject({ mode: 'onchain', transaction: settlement.transaction, demo: false, amount: '250000' });

    await expectStoredReplay({ serviceUrl: service.url, header, body, transaction: settlement.transaction, chain, payer: payer.address });
  });

  it('after a crash between the transfer and its record, the retry finds the transfer and never pays twice', async () => {
    const payer = await fundedPayer();
    const client = recordingPayer(payer.privateKey);
    const payToBefore = await chain.usdcBalance(payTo.address);
    const running = service.deps.payments;

    // A process that submits the transfer and dies before PaymentSettled is written.
    const real = await createOnchainSettler(service.deps.settings);
    const crashing: Settler = {
      ...real,
      async settle(payment) {
        await real.settle(payment);
        throw new Error('simulated crash after the transfer, before PaymentSettled');
      },
    };
    service.deps.payments = createGateway(crashing);
    const crashed = await attest(service.url, client.pay);
    expect(crashed.status).toBe(500);
    const header = client.sentPayments[0]!;
    const nonce = nonceOf(header);
    expect(await paymentStreamTypes(service.deps.store, payer.address, nonce)).toEqual(['PaymentAuthorized']);
    const transfers = await chain.usdcTransfers(payer.address);
    const paid = transfers.filter((t) => t.to === payTo.address);
    expect(paid).toHaveLength(1);

    // "Restarted": a fresh gateway over the configured settler; the client retries the same payment.
    service.deps.payments = running;
    const retried = await attest(service.url, fetch, { 'PAYMENT-SIGNATURE': header });
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(paymentResponseOf(retried).transaction).toBe(paid[0]!.transactionHash);
    expect(await paymentStreamTypes(service.deps.store, payer.address, nonce)).toEqual(['PaymentAuthorized', 'PaymentSettled', 'ResultSigned']);
    expect(await chain.usdcTransfers(payer.address)).toEqual(transfers);
    expect(await chain.usdcBalance(payer.address)).toBe(1_000_000n - ATTEST_PRICE_ATOMIC);
    expect(await chain.usdcBalance(payTo.address)).toBe(payToBefore + ATTEST_PRICE_ATOMIC);
  });

  it('refuses with 402 and writes nothing when the payer cannot cover the price', async () => {
    const broke = await chain.newAccount();
    const client = recordingPayer(broke.privateKey);
    const response = await attest(service.url, client.pay);
    expect(response.status).toBe(402);
    const header = client.sentPayments.at(-1)!;
    expect(await paymentStreamTypes(service.deps.store, broke.address, nonceOf(header))).toEqual([]);
    expect(await chain.usdcTransfers(broke.address)).toEqual([]);
  });
});
