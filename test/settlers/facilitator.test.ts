import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config.ts';
import type { Settler } from '../../src/payments/settlers/settler.ts';
import { createFacilitatorSettler } from '../../src/payments/settlers/facilitator.ts';
import type { LocalChain, TestAccount } from '../support/chain.ts';
import { startFacilitatorChain, type FacilitatorChain, type LocalFacilitator } from '../support/local-facilitator.ts';
import { PRICE_ATOMIC, settlementErrorOf, signedPayment } from './sign-authorization.ts';

describe('facilitator settler against a local x402 facilitator', () => {
  let world: FacilitatorChain;
  let chain: LocalChain;
  let facilitator: LocalFacilitator;
  let settler: Settler;
  let withChainReads: Settler;
  let payer: TestAccount;
  let payTo: TestAccount;

  beforeAll(async () => {
    world = await startFacilitatorChain(10_000_000n);
    ({ chain, facilitator, payer, payTo } = world);
    const env = { SETTLEMENT: 'facilitator', FACILITATOR_URL: facilitator.url, PAY_TO: payTo.address };
    settler = createFacilitatorSettler(loadSettings(env));
    withChainReads = createFacilitatorSettler(loadSettings({ ...env, RPC_URL: chain.rpcUrl }));
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('verifies and settles through the facilitator, which moves exactly the price', async () => {
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    const [payerBefore, payToBefore] = await Promise.all([chain.usdcBalance(payer.address), chain.usdcBalance(payTo.address)]);
    await settler.verify(payment);
    const settlement = await settler.settle(payment);
    expect(settlement).toMatchObject({ mode: 'facilitator', network: 'eip155:8453', payer: payer.address, amount: '250000', demo: false });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.usdcBalance(payer.address)).toBe(payerBefore - PRICE_ATOMIC);
    expect(await chain.usdcBalance(payTo.address)).toBe(payToBefore + PRICE_ATOMIC);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.from.toLowerCase()).toBe(chain.facilitator.address.toLowerCase());

    // Without RPC_URL the facilitator API cannot say whether a payment was settled.
    expect(await settler.findSettled(payment)).toBeUndefined();
    // With RPC_URL the chain can.
    expect(await withChainReads.findSettled(payment)).toEqual(settlement);

    // A second settle of the same authorization moves nothing and fails with the facilitator's reason.
    const transfers = (await chain.usdcTransfers(payer.address)).length;
    const error = await settlementErrorOf(settler.settle(payment));
    expect(error.transient).toBe(false);
    expect(error.reason).toMatch(/^invalid_exact_evm_/);
    expect((await chain.usdcTransfers(payer.address)).length).toBe(transfers);
  });

  it('settles an x402 v1 payment with v1 requirements', async () => {
    const v2 = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    const payment = {
      ...v2,
      x402Version: 1 as const,
      rawPayload: { x402Version: 1, scheme: 'exact', network: 'base', payload: { authorization: v2.authorization, signature: v2.signature } },
    };
    const payToBefore = await chain.usdcBalance(payTo.address);
    await settler.verify(payment);
    const settlement = await settler.settle(payment);
    expect(settlement).toMatchObject({ mode: 'facilitator', payer: payer.address, amount: '250000', demo: false });
    expect(await chain.usdcBalance(payTo.address)).toBe(payToBefore + PRICE_ATOMIC);
  });

  it("passes on the facilitator's reason when it refuses", async () => {
    const poor = await chain.newAccount();
    const error = await settlementErrorOf(settler.verify(await signedPayment({ payerKey: poor.privateKey, payTo: payTo.address })));
    expect(error.reason).toBe('invalid_exact_evm_insufficient_balance');
    expect(error.transient).toBe(false);

    const forged = await signedPayment({ payerKey: payer.privateKey, signerKey: poor.privateKey, payTo: payTo.address });
    const forgedError = await settlementErrorOf(settler.verify(forged));
    expect(forgedError.reason).toMatch(/signature/);
  });

  it('reports an unreachable or failing facilitator as transient', async () => {
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    const unreachable = createFacilitatorSettler(loadSettings({ SETTLEMENT: 'facilitator', FACILITATOR_URL: 'http://127.0.0.1:9', PAY_TO: payTo.address }));
    const refused = await settlementErrorOf(unreachable.settle(payment));
    expect(refused.transient).toBe(true);

    const broken: Server = createServer((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
      const failing = createFacilitatorSettler(loadSettings({ SETTLEMENT: 'facilitator', FACILITATOR_URL: url, PAY_TO: payTo.address }));
      const error = await settlementErrorOf(failing.verify(payment));
      expect(error.transient).toBe(true);
    } finally {
      broken.closeAllConnections();
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    }
  });
});
