import {
  BaseError,
  createPublicClient,
  getAddress,
  http,
  isAddressEqual,
  parseAbi,
  parseAbiItem,
  parseEventLogs,
  type Address,
  type Hash,
  type Log,
  type PublicClient,
} from 'viem';
import { base } from 'viem/chains';
import { SettlementError, type Settlement, type VerifiedPayment } from './settler.ts';

/** The EIP-3009 surface of USDC (FiatTokenV2) that settlement uses. */
export const eip3009TokenAbi = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);
const authorizationUsedEvent = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
const authorizationCanceledEvent = parseAbiItem('event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)');

/** x402 reason names (as @x402/evm reports them) for the failures we detect ourselves. */
export const SettlementReasons = {
  insufficientBalance: 'invalid_exact_evm_insufficient_balance',
  nonceAlreadyUsed: 'invalid_exact_evm_nonce_already_used',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  transferEventMismatch: 'invalid_exact_evm_transfer_event_mismatch',
  invalidSignature: 'invalid_exact_evm_signature',
  validBeforeExpired: 'invalid_exact_evm_payload_authorization_valid_before',
  validAfterInFuture: 'invalid_exact_evm_payload_authorization_valid_after',
  assetMismatch: 'invalid_exact_evm_asset_mismatch',
  rpcUnavailable: 'settlement_rpc_unavailable',
  settlementPending: 'settlement_pending',
  relayerOutOfGas: 'settlement_relayer_out_of_gas',
} as const;

/**
 * Providers cap eth_getLogs ranges (commonly 2,000-10,000 blocks); searching backwards in
 * windows this size works with all of them.
 */
const LOG_SEARCH_WINDOW = 2_000n;

/** viem public client for Base at the configured RPC URL (any chain id 8453 node, anvil included). */
export function createBasePublicClient(rpcUrl: string): PublicClient {
  return createPublicClient({ chain: base, transport: http(rpcUrl, { retryCount: 1, timeout: 15_000 }) }) as PublicClient;
}

export function tokenAddress(payment: VerifiedPayment, configuredAsset: string): Address {
  if (!isAddressEqual(getAddress(payment.requirements.asset), getAddress(configuredAsset)))
    throw new SettlementError(SettlementReasons.assetMismatch, `payment asset ${payment.requirements.asset} is not the configured USDC ${configuredAsset}`);
  return getAddress(configuredAsset);
}

/** True when the transaction's logs hold the exact Transfer the authorization promised. */
export function hasExactTransfer(logs: readonly Log[], token: Address, payment: VerifiedPayment): boolean {
  const { from, to, value } = payment.authorization;
  const transfers = parseEventLogs({
    abi: eip3009TokenAbi,
    eventName: 'Transfer',
    logs: logs.filter((log) => isAddressEqual(log.address, token)),
  });
  return transfers.some(
    (log) => isAddressEqual(log.args.from, getAddress(from)) && isAddressEqual(log.args.to, getAddress(to)) && log.args.value === BigInt(value),
  );
}

/**
 * Transport failures (node down, timeout, rate limit) may succeed on retry; contract reverts
 * and malformed requests will not.
 */
export function isTransientRpcError(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const transient = error.walk(
    (e) =>
      e instanceof Error &&
      ['HttpRequestError', 'TimeoutError', 'LimitExceededRpcError', 'ResourceUnavailableRpcError', 'InternalRpcError', 'SocketClosedError', 'WebSocketRequestError'].includes(e.name),
  );
  return transient !== null;
}

export function rpcFailure(error: unknown, doing: string): SettlementError {
  const detail = error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);
  return new SettlementError(SettlementReasons.rpcUnavailable, `${doing}: ${detail}`, true);
}

/** balanceOf(from) >= value and authorizationState(from, nonce) == false, read from the chain. */
export async function checkFundsAndNonce(client: PublicClient, token: Address, payment: VerifiedPayment): Promise<void> {
  const from = getAddress(payment.authorization.from);
  let balance: bigint;
  let used: boolean;
  try {
    [balance, used] = await Promise.all([
      client.readContract({ address: token, abi: eip3009TokenAbi, functionName: 'balanceOf', args: [from] }),
      client.readContract({ address: token, abi: eip3009TokenAbi, functionName: 'authorizationState', args: [from, payment.authorization.nonce] }),
    ]);
  } catch (error) {
    if (isTransientRpcError(error)) throw rpcFailure(error, 'reading the payer balance and nonce state');
    throw new SettlementError(SettlementReasons.transactionFailed, `the token at ${token} does not answer as EIP-3009 USDC`);
  }
  if (used) throw new SettlementError(SettlementReasons.nonceAlreadyUsed, 'the authorization nonce is already used on chain');
  if (balance < BigInt(payment.authorization.value))
    throw new SettlementError(SettlementReasons.insufficientBalance, `payer balance ${balance} is below the amount ${payment.authorization.value}`);
}

/**
 * Whether this authorization was already executed on chain, and by which transaction.
 *
 * authorizationState only says the nonce is spent; the AuthorizationUsed log (indexed by
 * authorizer and nonce) names the transaction, whose receipt must carry the exact Transfer.
 * A nonce spent by a cancellation, or by a different transfer under the same nonce, is not
 * our settlement: undefined, and settling will then fail with "nonce already used".
 */
export async function findSettledTransfer(
  client: PublicClient,
  token: Address,
  payment: VerifiedPayment,
  mode: 'facilitator' | 'onchain',
): Promise<Settlement | undefined> {
  const from = getAddress(payment.authorization.from);
  const nonce = payment.authorization.nonce;
  try {
    const used = await client.readContract({ address: token, abi: eip3009TokenAbi, functionName: 'authorizationState', args: [from, nonce] });
    if (!used) return undefined;
    const hash = await findAuthorizationTransaction(client, token, payment);
    if (hash === 'canceled') return undefined;
    if (!hash)
      throw new SettlementError(
        SettlementReasons.settlementPending,
        `nonce ${nonce} of ${from} is spent on chain but its AuthorizationUsed log was not found yet`,
        true,
      );
    const receipt = await client.getTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !hasExactTransfer(receipt.logs, token, payment)) return undefined;
    return {
      mode,
      transaction: hash,
      network: payment.requirements.network,
      payer: from,
      amount: payment.authorization.value,
      demo: false,
    };
  } catch (error) {
    if (error instanceof SettlementError) throw error;
    throw rpcFailure(error, 'looking up an earlier settlement on chain');
  }
}

async function findAuthorizationTransaction(client: PublicClient, token: Address, payment: VerifiedPayment): Promise<Hash | 'canceled' | undefined> {
  const from = getAddress(payment.authorization.from);
  const nonce = payment.authorization.nonce;
  const validAfter = BigInt(payment.authorization.validAfter);
  // Uncached: the cached block number can predate the very transfer being looked for.
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  // The transfer can only have been mined while block.timestamp > validAfter: stop there.
  for (let toBlock = latest; toBlock >= 0n; toBlock -= LOG_SEARCH_WINDOW) {
    const fromBlock = toBlock >= LOG_SEARCH_WINDOW ? toBlock - LOG_SEARCH_WINDOW + 1n : 0n;
    const [usedLogs, canceledLogs] = await Promise.all([
      client.getLogs({ address: token, event: authorizationUsedEvent, args: { authorizer: from, nonce }, fromBlock, toBlock }),
      client.getLogs({ address: token, event: authorizationCanceledEvent, args: { authorizer: from, nonce }, fromBlock, toBlock }),
    ]);
    const used = usedLogs.at(-1);
    if (used) return used.transactionHash;
    if (canceledLogs.length > 0) return 'canceled';
    if (fromBlock === 0n) return undefined;
    const windowStart = await client.getBlock({ blockNumber: fromBlock });
    if (windowStart.timestamp <= validAfter) return undefined;
  }
  return undefined;
}
