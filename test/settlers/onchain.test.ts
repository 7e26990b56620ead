import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, parseSignature, serializeSignature, type Address } from 'viem';
import { base } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadSettings } from '../../src/config.ts';
import { SettlementError, type Settler } from '../../src/payments/settlers/settler.ts';
import { createOnchainSettler } from '../../src/payments/settlers/onchain.ts';
import { startLocalChain, testTokenAbi, type LocalChain, type TestAccount } from '../support/chain.ts';
import { PRICE_ATOMIC, settlementErrorOf, signedPayment } from './sign-authorization.ts';

describe('onchain settler against the local chain', () => {
  let chain: LocalChain;
  let settler: Settler;
  let payer: TestAccount;
  let payTo: TestAccount;

  beforeAll(async () => {
    chain = await startLocalChain();
    [payer, payTo] = await Promise.all([chain.newAccount(), chain.newAccount()]);
    await chain.mintUsdc(payer.address, 10_000_000n);
    settler = await createOnchainSettler(
      loadSettings({ SETTLEMENT: 'onchain', RPC_URL: chain.rpcUrl, RELAYER_PRIVATE_KEY: chain.relayer.privateKey, PAY_TO: payTo.address }),
    );
  });
  afterAll(async () => {
    await chain?.stop();
  });

  async function expectSettlementError(promise: Promise<unknown>, reason: string) {
    expect((await settlementErrorOf(promise)).reason).toBe(reason);
  }

  it('verifies, settles with the exact Transfer, and reports it again after a crash', async () => {
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    const [payerBefore, payToBefore] = await Promise.all([chain.usdcBalance(payer.address), chain.usdcBalance(payTo.address)]);
    await settler.verify(payment);
    expect(await settler.findSettled(payment)).toBeUndefined();

    const settlement = await settler.settle(payment);
    expect(settlement).toMatchObject({ mode: 'onchain', network: 'eip155:8453', payer: payer.address, amount: '250000', demo: false });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.usdcBalance(payer.address)).toBe(payerBefore - PRICE_ATOMIC);
    expect(await chain.usdcBalance(payTo.address)).toBe(payToBefore + PRICE_ATOMIC);

    // The relayer paid the gas, and only the gas: it never holds the funds.
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.from.toLowerCase()).toBe(chain.relayer.address.toLowerCase());
    expect(await chain.usdcBalance(chain.relayer.address)).toBe(0n);

    expect(await settler.findSettled(payment)).toEqual(settlement);
    await expectSettlementError(settler.verify(payment), 'invalid_exact_evm_nonce_already_used');
    // Settling again moves nothing and answers with the transfer already made.
    const transfersBefore = (await chain.usdcTransfers(payer.address)).length;
    expect(await settler.settle(payment)).toEqual(settlement);
    expect((await chain.usdcTransfers(payer.address)).length).toBe(transfersBefore);
  });

  it('finds a transfer made without the service (a crash before recording it) and never transfers twice', async () => {
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    // Someone else (here the faucet) submits the very same authorization through the bytes overload.
    const faucet = privateKeyToAccount(chain.faucet.privateKey);
    const a = payment.authorization;
    const wallet = createWalletClient({ account: faucet, chain: base, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({
      address: chain.usdc,
      abi: testTokenAbi,
      functionName: 'transferWithAuthorization',
      args: [a.from, a.to as Address, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, payment.signature],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    const balanceAfterCrash = await chain.usdcBalance(payTo.address);

    const found = await settler.findSettled(payment);
    expect(found).toMatchObject({ mode: 'onchain', transaction: hash, amount: '250000', demo: false });
    expect(await settler.settle(payment)).toMatchObject({ transaction: hash });
    expect(await chain.usdcBalance(payTo.address)).toBe(balanceAfterCrash);
  });

  it('settles a compact (yParity) signature through the v, r, s entry point', async () => {
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    const compact = serializeSignature({ ...parseSignature(payment.signature), v: undefined });
    expect(compact.length).toBe(132);
    const settlement = await settler.settle({ ...payment, signature: compact });
    expect(settlement.transaction).toMatch(/^0x/);
  });

  it('refuses what the chain would refuse, with the x402 reason', async () => {
    const poor = await chain.newAccount();
    await chain.mintUsdc(poor.address, 1n);
    await expectSettlementError(settler.verify(await signedPayment({ payerKey: poor.privateKey, payTo: payTo.address })), 'invalid_exact_evm_insufficient_balance');
    await expectSettlementError(settler.settle(await signedPayment({ payerKey: poor.privateKey, payTo: payTo.address })), 'invalid_exact_evm_insufficient_balance');

    const forged = await signedPayment({ payerKey: payer.privateKey, signerKey: poor.privateKey, payTo: payTo.address });
    await expectSettlementError(settler.settle(forged), 'invalid_exact_evm_signature');

    const expired = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address, validForSeconds: -10 });
    await expectSettlementError(settler.settle(expired), 'invalid_exact_evm_payload_authorization_valid_before');
  });

  it('reports a relayer without gas money as transient, and moves nothing', async () => {
    const penniless = await createOnchainSettler(
      loadSettings({ SETTLEMENT: 'onchain', RPC_URL: chain.rpcUrl, RELAYER_PRIVATE_KEY: generatePrivateKey(), PAY_TO: payTo.address }),
    );
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    expect(await settlementErrorOf(penniless.settle(payment))).toMatchObject({ reason: 'settlement_relayer_out_of_gas', transient: true });
    expect(await chain.authorizationState(payer.address, payment.authorization.nonce)).toBe(false);
  });

  it('settles concurrent payments through one relayer without nonce collisions', async () => {
    const payments = await Promise.all(Array.from({ length: 6 }, () => signedPayment({ payerKey: payer.privateKey, payTo: payTo.address })));
    const before = await chain.usdcBalance(payTo.address);
    const settlements = await Promise.all(payments.map((p) => settler.settle(p)));
    expect(new Set(settlements.map((s) => s.transaction)).size).toBe(6);
    expect(await chain.usdcBalance(payTo.address)).toBe(before + 6n * PRICE_ATOMIC);
  });

  it('reports an unreachable RPC as transient', async () => {
    const unreachable = await createOnchainSettler(
      loadSettings({ SETTLEMENT: 'onchain', RPC_URL: 'http://127.0.0.1:9', RELAYER_PRIVATE_KEY: chain.relayer.privateKey, PAY_TO: payTo.address }),
    );
    const payment = await signedPayment({ payerKey: payer.privateKey, payTo: payTo.address });
    const outcomes = await Promise.allSettled([unreachable.verify(payment), unreachable.settle(payment), unreachable.findSettled(payment)]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const error: unknown = outcome.status === 'rejected' ? outcome.reason : undefined;
      expect(error).toBeInstanceOf(SettlementError);
      expect((error as SettlementError).transient).toBe(true);
    }
  });
});
