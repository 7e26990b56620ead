import type { PaymentRequirements } from '@x402/core/types';
import type { Settings } from '../../config.ts';
import type { PricedOperation } from '../../kernel/operation.ts';
import type { DecodedHeader } from './decode.ts';
import { chainIdOf, transferAuthorizationDigest } from './eip3009-digest.ts';
import { paymentRequirements, X402_SCHEME } from './quote.ts';
import { PAYMENT_REASONS, PaymentRejected } from './reasons.ts';
import { recoverSignerOffTheLoop } from './recover-signer.ts';
import type { TransferAuthorization, VerifiedPayment } from '../settlers/settler.ts';

/** validBefore must leave at least this long to settle (the x402 exact facilitator's margin). */
export const VALID_BEFORE_MARGIN_SECONDS = 6;
/** x402 v1 names the networks; v2 uses CAIP-2. */
const V1_NETWORKS: Record<string, string> = { base: 'eip155:8453' };

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Checks a decoded payment against the route's current quote, cheapest checks first, the
 * signature recovery last. Throws PaymentRejected with the x402 reason on the first mismatch.
 * The time window is not checked here: a payment that already paid for its request is replayed
 * or finished whatever the time, so the saga applies `checkTimeWindow` to new payments only.
 */
export async function verifyPayment(decoded: DecodedHeader, op: PricedOperation, settings: Settings): Promise<VerifiedPayment> {
  const quote = currentQuote(op, settings);
  const { payment } = decoded;
  if (payment.x402Version === 2) checkAccepted(payment.accepted, quote);
  else {
    if (payment.scheme !== X402_SCHEME) throw new PaymentRejected(PAYMENT_REASONS.scheme, `scheme ${payment.scheme} is not offered; this route takes "${X402_SCHEME}"`);
    if ((V1_NETWORKS[payment.network] ?? payment.network) !== quote.network)
      throw new PaymentRejected(PAYMENT_REASONS.network, `network ${payment.network} is not offered; this route takes ${quote.network}`);
  }

  const authorization = payment.payload.authorization as TransferAuthorization;
  if (!sameAddress(authorization.to, quote.payTo))
    throw new PaymentRejected(PAYMENT_REASONS.recipient, `the authorization pays ${authorization.to}, not the quoted payTo ${quote.payTo}`);
  if (BigInt(authorization.value) !== BigInt(quote.amount))
    throw new PaymentRejected(PAYMENT_REASONS.value, `the authorization is for ${authorization.value} atomic units; this route costs exactly ${quote.amount}`);

  const extra = quote.extra as { name: string; version: string };
  const digest = transferAuthorizationDigest(
    { name: extra.name, version: extra.version, chainId: chainIdOf(quote.network), verifyingContract: quote.asset },
    authorization,
  );
  const signer = await recoverSignerOffTheLoop(digest, payment.payload.signature);
  if (!signer || !sameAddress(signer, authorization.from))
    throw new PaymentRejected(PAYMENT_REASONS.signature, 'the signature does not recover to the authorization\'s from address');

  return {
    x402Version: payment.x402Version,
    requirements: quote,
    authorization,
    signature: payment.payload.signature as `0x${string}`,
    rawPayload: decoded.raw,
  };
}

/** A new payment must be valid now and leave time to settle before it expires. */
export function checkTimeWindow(authorization: Pick<TransferAuthorization, 'validAfter' | 'validBefore'>, nowSeconds: number): void {
  if (BigInt(authorization.validBefore) < BigInt(nowSeconds + VALID_BEFORE_MARGIN_SECONDS))
    throw new PaymentRejected(PAYMENT_REASONS.validBefore, `the authorization expires at ${authorization.validBefore}, too soon to settle (now ${nowSeconds}, margin ${VALID_BEFORE_MARGIN_SECONDS} s)`);
  if (BigInt(authorization.validAfter) > BigInt(nowSeconds))
    throw new PaymentRejected(PAYMENT_REASONS.validAfter, `the authorization is valid only after ${authorization.validAfter} (now ${nowSeconds})`);
}

const quotes = new WeakMap<PricedOperation, { settings: Settings; priceUsd: string; quote: PaymentRequirements }>();

/**
 * The route's quote, built once per route, settings and price rather than per paid call (building
 * it parses the price). Frozen: every verified payment of the route carries this same object.
 */
function currentQuote(op: PricedOperation, settings: Settings): PaymentRequirements {
  const cached = quotes.get(op);
  if (cached && cached.settings === settings && cached.priceUsd === op.priceUsd) return cached.quote;
  const built = paymentRequirements(op, settings);
  const quote = Object.freeze({ ...built, ...(built.extra ? { extra: Object.freeze({ ...built.extra }) } : {}) });
  quotes.set(op, { settings, priceUsd: op.priceUsd, quote });
  return quote;
}

/** v2 echoes the requirements it chose: they must be what we quote for this route now. */
function checkAccepted(accepted: Extract<DecodedHeader['payment'], { x402Version: 2 }>['accepted'], quote: PaymentRequirements): void {
  if (accepted.scheme !== quote.scheme) throw new PaymentRejected(PAYMENT_REASONS.scheme, `scheme ${accepted.scheme} is not offered; this route takes "${quote.scheme}"`);
  if (accepted.network !== quote.network) throw new PaymentRejected(PAYMENT_REASONS.network, `network ${accepted.network} is not offered; this route takes ${quote.network}`);
  if (!sameAddress(accepted.asset, quote.asset)) throw new PaymentRejected(PAYMENT_REASONS.asset, `asset ${accepted.asset} is not offered; this route takes ${quote.asset}`);
  if (!sameAddress(accepted.payTo, quote.payTo)) throw new PaymentRejected(PAYMENT_REASONS.recipient, `accepted.payTo ${accepted.payTo} is not the quoted payTo ${quote.payTo}`);
  if (accepted.amount !== quote.amount) throw new PaymentRejected(PAYMENT_REASONS.value, `accepted.amount ${accepted.amount} is not the quoted ${quote.amount}`);
  const extra = accepted.extra ?? {};
  const quotedExtra = quote.extra as { name: string; version: string };
  if (accepted.maxTimeoutSeconds !== quote.maxTimeoutSeconds || extra['name'] !== quotedExtra.name || extra['version'] !== quotedExtra.version)
    throw new PaymentRejected(PAYMENT_REASONS.requirements, 'accepted does not match the route\'s current quote (maxTimeoutSeconds or the EIP-712 domain in extra)');
}
