import type { CallContext, PricedOperation, Refusal, ServiceDeps } from '../../kernel/operation.ts';
import { eventId } from '../../events/event-ids.ts';
import { isSoleWriter } from '../../events/sole-writer.ts';
import {
  PAYMENT_EVENT_TYPES,
  paymentStreamName,
  type PaymentAuthorized,
  type PaymentSettled,
  type ResultSigned,
} from './events.ts';
import { WrongExpectedRevisionError, type EventData } from '../../events/port.ts';
import { PAYMENT_REASONS } from '../x402/reasons.ts';
import { SettlementError, type Settlement, type Settler, type VerifiedPayment } from '../settlers/settler.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { appendClaim, claimBeforeFirstAppend, ClaimLostError } from './claim.ts';
import { bindPaymentIdentifier, checkPaymentIdentifier, type PaymentIdentifierClaim } from './payment-identifier.ts';
import { readPaymentStream, waitWhileInFlight, type PaymentProgress } from './payment-stream.ts';
import { presentSignedResult, runOperation, type SignedResult } from '../../kernel/run-operation.ts';

const MAX_REMEMBERED_STREAMS = 10_000;

/** One verified paid request, as the gateway hands it to the saga. */
export interface PaidCall {
  op: PricedOperation;
  input: unknown;
  requestHash: string;
  payment: VerifiedPayment;
  /** Unix seconds, stamped once by the gateway. */
  now: number;
  paymentIdentifier?: string;
}

export type PaidCallOutcome =
  | { kind: 'signed'; body: JsonObject; settlement: PaymentSettled }
  /** command.authorize refused: nothing claimed, nothing charged. */
  | { kind: 'refused'; refusal: Refusal }
  /** 402: the payment cannot pay for this request. */
  | { kind: 'rejected'; reason: string; message: string }
  /** 409: the payment identifier was first used with another payload. */
  | { kind: 'identifier-conflict'; message: string }
  /** 503: settlement could not complete now; the claim stays, and a retry resumes it. */
  | { kind: 'settlement-unavailable'; reason: string; message: string };

export interface PaidCallSaga {
  run(call: PaidCall, deps: ServiceDeps): Promise<PaidCallOutcome>;
}

/**
 * The paid-call saga of DESIGN.md section 3, in the payment's own stream:
 * PaymentAuthorized (claims the nonce, expected revision "no stream") -> PaymentSettled ->
 * ResultSigned. Whatever point a call stopped at, the same payment with the same request
 * resumes from there; once signed, it is answered from the stored result, byte for byte.
 *
 * Calls carrying one payment are serialised inside this process (a queue per payment stream),
 * so concurrent duplicates wait for the first and then replay its result; across processes the
 * atomic claim decides, and the loser waits for the winner's progress (payment-stream.ts).
 */
export function createPaidCallSaga(settler: Settler): PaidCallSaga {
  const queues = new Map<string, Promise<void>>();
  /** Streams this process has worked on: nobody else is presumed to be moving them forward. */
  const ownedHere = new Set<string>();
  const rememberOwned = (stream: string) => {
    ownedHere.delete(stream);
    ownedHere.add(stream);
    // Bounded: a payer who never retries must not cost memory forever (oldest forgotten first;
    // forgetting only means one extra short wait on a late retry).
    if (ownedHere.size > MAX_REMEMBERED_STREAMS) ownedHere.delete(ownedHere.values().next().value!);
  };

  async function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const current = previous.then(work);
    const tail = current.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    try {
      return await current;
    } finally {
      if (queues.get(key) === tail) queues.delete(key);
    }
  }

  /** This saga's identity as a writer of payment streams (events/sole-writer.ts). */
  const owner = {};

  async function run(call: PaidCall, deps: ServiceDeps): Promise<PaidCallOutcome> {
    // Asked before anything is written, so that a second saga on the same store is known before
    // its first append and the read-back of claims comes back for both.
    isSoleWriter(deps.store, owner);
    const payer = call.payment.authorization.from.toLowerCase();
    const stream = paymentStreamName(payer, call.payment.authorization.nonce);

    let identifier: PaymentIdentifierClaim | undefined;
    if (call.paymentIdentifier) {
      const checked = await checkPaymentIdentifier(deps.store, payer, call.paymentIdentifier, stream, call);
      if (checked.kind === 'conflict') return { kind: 'identifier-conflict', message: checked.message };
      identifier = checked.claim;
    }

    return serialised(stream, async () => {
      let progress = await readPaymentStream(deps.store, stream);
      if (!progress.authorized) {
        const started = await start(call, deps, stream, payer, identifier);
        if (started.kind !== 'claimed') return started.outcome;
        progress = started.progress;
      } else if (!ownedHere.has(stream)) {
        progress = await waitWhileInFlight(deps.store, stream, progress);
      }
      const outcome = await resume(call, deps, stream, progress);
      // Only an unfinished settlement is worth remembering; a finished stream needs no waiting.
      if (outcome.kind === 'settlement-unavailable') rememberOwned(stream);
      else ownedHere.delete(stream);
      return outcome;
    });
  }

  type Started = { kind: 'claimed'; progress: PaymentProgress } | { kind: 'answered'; outcome: PaidCallOutcome };

  /** A payment seen for the first time: authorize, then claim its nonce atomically. */
  async function start(call: PaidCall, deps: ServiceDeps, stream: string, payer: string, identifier: PaymentIdentifierClaim | undefined): Promise<Started> {
    const authorize = call.op.command?.authorize;
    // Before the claim: a refusal leaves no trace, so the payer can spend the same signed
    // authorization on a request it is entitled to make.
    const refusal = authorize ? await authorize(call.input, callContext(deps, call.now, payer, stream)) : undefined;
    if (refusal) return { kind: 'answered', outcome: { kind: 'refused', refusal } };
    try {
      await settler.verify(call.payment);
    } catch (err) {
      if (err instanceof SettlementError) return { kind: 'answered', outcome: { kind: 'rejected', reason: err.reason, message: err.message } };
      throw err;
    }
    if (identifier) {
      const bound = await bindPaymentIdentifier(deps.store, identifier);
      if (bound.kind === 'conflict') return { kind: 'answered', outcome: { kind: 'identifier-conflict', message: bound.message } };
    }
    const { authorization, requirements, signature, x402Version } = call.payment;
    const authorized: PaymentAuthorized = {
      requestHash: call.requestHash,
      operation: call.op.id,
      method: call.op.method,
      path: call.op.path,
      payer,
      payTo: requirements.payTo.toLowerCase(),
      amount: requirements.amount,
      network: requirements.network,
      asset: requirements.asset,
      nonce: authorization.nonce.toLowerCase(),
      validBefore: authorization.validBefore,
      x402Version,
      ...(call.paymentIdentifier ? { paymentIdentifier: call.paymentIdentifier } : {}),
      authorization: { ...authorization },
      signature,
      authorizedAt: call.now,
    };
    if (settler.movesFunds === false) {
      const answered = await claimSettleAndSign(call, deps, stream, authorized);
      if (answered) return { kind: 'answered', outcome: answered };
      return { kind: 'claimed', progress: await claimedElsewhere(deps, stream) };
    }
    try {
      await deps.store.appendToStream(stream, [authorizedEvent(stream, authorized)], { expectedRevision: 'no_stream' });
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
      // Another process claimed it first: from here on this is a retry of its call.
      return { kind: 'claimed', progress: await claimedElsewhere(deps, stream) };
    }
    // Read back rather than trust our own copy: appends are idempotent by event id, so a claim by
    // another process for this payment (another request, another clock) also "succeeds" here,
    // and what is stored is what every step after this must follow. Unless nobody else writes
    // this store's payment streams: then the queue made the stream ours, and our copy is it.
    if (isSoleWriter(deps.store, owner)) return { kind: 'claimed', progress: { authorized: { data: authorized, revision: 0n } } };
    return { kind: 'claimed', progress: await readPaymentStream(deps.store, stream) };
  }

  async function claimedElsewhere(deps: ServiceDeps, stream: string): Promise<PaymentProgress> {
    const seen = await readPaymentStream(deps.store, stream);
    return waitWhileInFlight(deps.store, stream, seen, { justClaimedElsewhere: true });
  }

  /**
   * A settler that moves no money (payment-claim.ts): settle (a pure function), run the command
   * and seal, then claim, settle and sign in one atomic append, or, when the command appends
   * domain events, claim and settle before its first append and sign after it. Undefined when
   * another call holds the claim: the caller resumes from what is stored.
   */
  async function claimSettleAndSign(call: PaidCall, deps: ServiceDeps, stream: string, authorized: PaymentAuthorized): Promise<PaidCallOutcome | undefined> {
    let settlement: Settlement;
    try {
      settlement = await settler.settle(call.payment);
    } catch (err) {
      if (!(err instanceof SettlementError)) throw err;
      return err.transient ? { kind: 'settlement-unavailable', reason: err.reason, message: err.message } : { kind: 'rejected', reason: err.reason, message: err.message };
    }
    const settled = settledOf(settlement);
    const claimEvents = [authorizedEvent(stream, authorized), settledEvent(stream, settled)];
    // The stream was absent when this call, inside its queue, read it (run above).
    const writesAlone = () => isSoleWriter(deps.store, owner);
    const store = claimBeforeFirstAppend(deps.store, () => appendClaim(deps.store, stream, authorized, claimEvents, writesAlone));
    try {
      const ctx: CallContext = { ...deps, now: authorized.authorizedAt, payer: authorized.payer, paymentId: stream, store };
      const result = await runOperation(call.op, call.input, ctx);
      const signed = signedEvent(stream, signedOf(call.op, result, ctx.now));
      if (await store.claimedYet()) await deps.store.appendToStream(stream, [signed], { expectedRevision: BigInt(claimEvents.length - 1) });
      else await appendClaim(deps.store, stream, authorized, [...claimEvents, signed], writesAlone);
      return { kind: 'signed', body: result.body, settlement: settled };
    } catch (err) {
      // Lost the claim (before or during the command, which then wrote nothing): not ours to sign.
      if (err instanceof ClaimLostError) return undefined;
      // A command that failed after starting the claim: this call keeps its queue until the
      // claim has settled, so the next call for the stream reads what the claim left.
      await store.claimedYet().catch(() => false);
      throw err;
    }
  }

  /** Settle if not settled, run and sign if not signed, then answer from the stream. */
  async function resume(call: PaidCall, deps: ServiceDeps, stream: string, progress: PaymentProgress): Promise<PaidCallOutcome> {
    const authorized = progress.authorized!;
    if (authorized.data.requestHash !== call.requestHash)
      return { kind: 'rejected', reason: PAYMENT_REASONS.nonceUsed, message: 'payment already used for another request' };

    let settled = progress.settled?.data;
    let settledRevision = progress.settled?.revision;
    if (!settled) {
      let settlement;
      try {
        settlement = (await settler.findSettled(call.payment)) ?? (await settler.settle(call.payment));
      } catch (err) {
        if (!(err instanceof SettlementError)) throw err;
        if (err.transient) return { kind: 'settlement-unavailable', reason: err.reason, message: err.message };
        return { kind: 'rejected', reason: err.reason, message: err.message };
      }
      settled = settledOf(settlement);
      const appended = await deps.store.appendToStream(stream, [settledEvent(stream, settled)], { expectedRevision: authorized.revision });
      settledRevision = appended.nextExpectedRevision;
    }

    if (progress.signed) {
      const stored = progress.signed.data;
      const body = presentSignedResult(call.op, stored.record, stored, deps.baseUrl);
      return { kind: 'signed', body, settlement: settled };
    }

    // The clock of the first attempt: a resumed command rebuilds the same record.
    const ctx = callContext(deps, authorized.data.authorizedAt, authorized.data.payer, stream);
    const result = await runOperation(call.op, call.input, ctx);
    await deps.store.appendToStream(stream, [signedEvent(stream, signedOf(call.op, result, ctx.now))], { expectedRevision: settledRevision! });
    return { kind: 'signed', body: result.body, settlement: settled };
  }

  return { run };
}

function callContext(deps: ServiceDeps, now: number, payer: string, paymentId: string): CallContext {
  return { ...deps, now, payer, paymentId };
}

function settledOf(settlement: Settlement): PaymentSettled {
  return {
    mode: settlement.mode,
    transaction: settlement.transaction,
    network: settlement.network,
    payer: settlement.payer.toLowerCase(),
    amount: settlement.amount,
    demo: settlement.demo,
  };
}

function signedOf(op: PricedOperation, result: SignedResult, signedAt: number): ResultSigned {
  return {
    operation: op.id,
    keyFamily: op.keyFamily!,
    record: result.record,
    sha256: result.seal.sha256,
    ed25519Sig: result.seal.ed25519Sig,
    keyId: result.seal.keyId,
    signedAt,
  };
}

// Deterministic ids (payment stream, type): a replayed append of a step is the same append.
const authorizedEvent = (stream: string, data: PaymentAuthorized): EventData => ({ id: eventId(stream, PAYMENT_EVENT_TYPES.authorized), type: PAYMENT_EVENT_TYPES.authorized, data });
const settledEvent = (stream: string, data: PaymentSettled): EventData => ({ id: eventId(stream, PAYMENT_EVENT_TYPES.settled), type: PAYMENT_EVENT_TYPES.settled, data });
const signedEvent = (stream: string, data: ResultSigned): EventData => ({ id: eventId(stream, PAYMENT_EVENT_TYPES.signed), type: PAYMENT_EVENT_TYPES.signed, data });
