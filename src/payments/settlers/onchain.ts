import {
  BaseError,
  createWalletClient,
  getAddress,
  http,
  InsufficientFundsError,
  parseSignature,
  WaitForTransactionReceiptTimeoutError,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base } from 'viem/chains';
import type { Settings } from '../../config.ts';
import { SettlementError, type Settlement, type Settler, type VerifiedPayment } from './settler.ts';
import {
  SettlementReasons,
  checkFundsAndNonce,
  createBasePublicClient,
  eip3009TokenAbi,
  findSettledTransfer,
  hasExactTransfer,
  isTransientRpcError,
  rpcFailure,
  tokenAddress,
} from './evm-token.ts';

/** Base produces a block every 2 s; a minute without a receipt means the node or the mempool is stuck. */
const RECEIPT_TIMEOUT_MS = 60_000;
const BASE_CHAIN_ID = 8453;
/** Start-up must not hang on a silent node; settlement reports an unreachable one per call anyway. */
const STARTUP_CHAIN_CHECK_MS = 5_000;

/** The token's revert strings (FiatTokenV2 and ERC-20) mapped to x402 reason names. */
function revertReason(error: unknown): string {
  const message = error instanceof BaseError ? `${error.shortMessage} ${error.details ?? ''}` : String(error);
  if (/authorization is expired|AuthorizationExpired/i.test(message)) return SettlementReasons.validBeforeExpired;
  if (/authorization is not yet valid|AuthorizationNotYetValid/i.test(message)) return SettlementReasons.validAfterInFuture;
  if (/authorization is used|AuthorizationAlreadyUsed|used or canceled/i.test(message)) return SettlementReasons.nonceAlreadyUsed;
  if (/exceeds balance|insufficient balance|ERC20InsufficientBalance/i.test(message)) return SettlementReasons.insufficientBalance;
  if (/invalid signature|SignerMismatch/i.test(message)) return SettlementReasons.invalidSignature;
  return SettlementReasons.transactionFailed;
}

function transferArgs(payment: VerifiedPayment) {
  const a = payment.authorization;
  return [getAddress(a.from), getAddress(a.to), BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce] as const;
}

/** An in-process queue: one relayer account, so its transactions must take nonces in turn. */
function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

async function assertBaseChain(client: PublicClient, rpcUrl: string): Promise<void> {
  let chainId: number;
  try {
    chainId = await Promise.race([
      client.getChainId(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer')), STARTUP_CHAIN_CHECK_MS).unref()),
    ]);
  } catch {
    // An RPC that is down at start-up is a transient condition each settlement reports itself;
    // only a node of the wrong chain is a configuration error worth refusing to start for.
    return;
  }
  if (chainId !== BASE_CHAIN_ID) throw new Error(`RPC_URL ${new URL(rpcUrl).origin} serves chain ${chainId}, not Base (${BASE_CHAIN_ID})`);
}

/**
 * Settlement the service submits itself: transferWithAuthorization sent by the relayer key
 * (gas payer only; the funds go from the payer to PAY_TO as the payer signed), confirmed by
 * the receipt's Transfer event. The chain's nonce state is the ledger after a crash.
 */
export async function createOnchainSettler(settings: Settings): Promise<Settler> {
  const { RPC_URL: rpcUrl, RELAYER_PRIVATE_KEY: relayerKey } = settings;
  if (!rpcUrl || !relayerKey) throw new Error('RPC_URL and RELAYER_PRIVATE_KEY are required when SETTLEMENT=onchain');
  const relayer = privateKeyToAccount(relayerKey as Hex);
  if (relayer.address.toLowerCase() === settings.PAY_TO.toLowerCase())
    throw new Error('RELAYER_PRIVATE_KEY must not be the PAY_TO key: the relayer only pays gas');

  const publicClient = createBasePublicClient(rpcUrl);
  const walletClient = createWalletClient({ account: relayer, chain: base, transport: http(rpcUrl, { retryCount: 1, timeout: 30_000 }) });
  const submitInTurn = createSerialQueue();
  await assertBaseChain(publicClient, rpcUrl);

  async function submit(token: Address, payment: VerifiedPayment): Promise<Hash> {
    const args = transferArgs(payment);
    const signature = payment.signature;
    // 65-byte ECDSA signatures go through the (v, r, s) entry point every USDC version has; others
    // (ERC-1271 smart wallets) need the bytes overload of FiatTokenV2.2.
    const isEcdsa = signature.length === 132;
    return submitInTurn(() => {
      if (isEcdsa) {
        const { r, s, v, yParity } = parseSignature(signature);
        const vByte = Number(v ?? BigInt(yParity + 27));
        return walletClient.writeContract({ address: token, abi: eip3009TokenAbi, functionName: 'transferWithAuthorization', args: [...args, vByte, r, s] });
      }
      return walletClient.writeContract({ address: token, abi: eip3009TokenAbi, functionName: 'transferWithAuthorization', args: [...args, signature] });
    });
  }

  async function settle(payment: VerifiedPayment): Promise<Settlement> {
    const token = tokenAddress(payment, settings.USDC_ADDRESS);
    let hash: Hash;
    try {
      hash = await submit(token, payment);
    } catch (error) {
      if (isTransientRpcError(error)) throw rpcFailure(error, 'submitting transferWithAuthorization');
      // The relayer's gas money is the service's problem, not the payer's: retry once it is topped up.
      if (error instanceof BaseError && error.walk((e) => e instanceof InsufficientFundsError))
        throw new SettlementError(SettlementReasons.relayerOutOfGas, `the relayer ${relayer.address} cannot pay for gas`, true);
      const reason = revertReason(error);
      // The nonce may be spent by our own earlier submission whose receipt we never recorded.
      if (reason === SettlementReasons.nonceAlreadyUsed) {
        const earlier = await findSettledTransfer(publicClient, token, payment, 'onchain');
        if (earlier) return earlier;
      }
      const detail = error instanceof BaseError ? error.shortMessage : String(error);
      throw new SettlementError(reason, `transferWithAuthorization would revert: ${detail}`);
    }

    let receipt;
    try {
      receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
    } catch (error) {
      // Broadcast but unconfirmed: retrying later finds it through findSettled, never resubmits blindly.
      if (error instanceof WaitForTransactionReceiptTimeoutError || isTransientRpcError(error))
        throw new SettlementError(SettlementReasons.settlementPending, `transaction ${hash} sent, receipt not seen yet`, true);
      throw rpcFailure(error, `waiting for the receipt of ${hash}`);
    }
    if (receipt.status !== 'success') throw new SettlementError(SettlementReasons.transactionFailed, `transaction ${hash} reverted`);
    if (!hasExactTransfer(receipt.logs, token, payment))
      throw new SettlementError(SettlementReasons.transferEventMismatch, `transaction ${hash} carries no Transfer of exactly the authorized value to the payee`);
    return {
      mode: 'onchain',
      transaction: hash,
      network: payment.requirements.network,
      payer: getAddress(payment.authorization.from),
      amount: payment.authorization.value,
      demo: false,
    };
  }

  return {
    mode: 'onchain',
    async verify(payment) {
      await checkFundsAndNonce(publicClient, tokenAddress(payment, settings.USDC_ADDRESS), payment);
    },
    settle,
    findSettled: (payment) => findSettledTransfer(publicClient, tokenAddress(payment, settings.USDC_ADDRESS), payment, 'onchain'),
  };
}
