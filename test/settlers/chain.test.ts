import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../support/chain.ts';

describe('local chain', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startLocalChain();
  });
  afterAll(async () => {
    await chain?.stop();
  });

  it('runs as chain 8453 with the test token at the Base USDC address', async () => {
    expect(await chain.publicClient.getChainId()).toBe(8453);
    const code = await chain.publicClient.getCode({ address: chain.usdc });
    expect(code && code.length > 2).toBe(true);
    const multicall = await chain.publicClient.getCode({ address: '0xcA11bde05977b3631167028862bE2a173976CA11' });
    expect(multicall && multicall.length > 2).toBe(true);
  });

  it('mints and reports balances', async () => {
    const holder = await chain.newAccount();
    await chain.mintUsdc(holder.address, 1_000_000n);
    expect(await chain.usdcBalance(holder.address)).toBe(1_000_000n);
    const transfers = await chain.usdcTransfers();
    expect(transfers.some((t) => t.to === holder.address && t.value === 1_000_000n)).toBe(true);
  });
});
