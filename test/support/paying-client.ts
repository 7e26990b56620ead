import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** Base mainnet: the only network the service quotes. */
export const PAYING_NETWORK = 'eip155:8453';
/** Above the dearest route ($29): the official client refuses anything over $1 by default. */
export const TEST_SPEND_CAP_USD = '$50';

export type PayingFetch = typeof fetch & { readonly address: Address; readonly account: PrivateKeyAccount };

/** An official x402 client for one wallet: exact EVM scheme on Base, spend cap raised for the tests. */
export function createPayingClient(account: PrivateKeyAccount): x402Client {
  return new x402Client()
    .register(PAYING_NETWORK, new ExactEvmScheme(account))
    .setSpendControls({ maxAmountPerPayment: TEST_SPEND_CAP_USD });
}

/**
 * `fetch` that pays 402 answers with @x402/fetch, signing with the given key (a random one if
 * omitted). The returned function also carries the wallet's `address` (the payer the service sees).
 */
export function createPayingFetch(privateKey: Hex = generatePrivateKey()): PayingFetch {
  const account = privateKeyToAccount(privateKey);
  const paying = wrapFetchWithPayment(globalThis.fetch, createPayingClient(account)) as typeof fetch;
  return Object.assign(paying, { address: account.address, account });
}

/** The payer address of a private key, lowercase as the service records it. */
export function payerAddressOf(privateKey: Hex): Address {
  return privateKeyToAccount(privateKey).address.toLowerCase() as Address;
}
