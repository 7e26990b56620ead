import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { testCallContext } from '../../../test/support/call-context.ts';
import { signPayment } from '../../../test/support/x402-payments.ts';
import { findOperation } from '../../catalog/index.ts';
import { createMemoryEventStore } from '../../events/memory-store.ts';
import { EventStoreUnavailableError, type EventStore } from '../../events/port.ts';
import { DomainRefusal } from '../../kernel/decider.ts';
import type { ServiceDeps } from '../../kernel/operation.ts';
import { UnavailableNowError } from '../../kernel/unavailable.ts';
import { canonicalSha256 } from '../../signing/hash.ts';
import { createGateway } from '../gateway.ts';
import { createLocalSettler, localSettlement } from '../settlers/local.ts';
import type { Settlement, Settler, VerifiedPayment } from '../settlers/settler.ts';
import { decodePaymentHeader } from '../x402/decode.ts';
import { paymentRequired } from '../x402/quote.ts';
import { PAYMENT_REASONS } from '../x402/reasons.ts';
import { verifyPayment } from '../x402/verify-payment.ts';
import { authorizedOf, claimPayment } from './claim.ts';
import type { PaidCall, SagaStep } from './context.ts';
import { PAYMENT_EVENT_TYPES, paymentStreamName } from './events.ts';
import { executeAndSign } from './execute-and-sign.ts';
import { createPaidCallSaga } from './paid-call.ts';
import { readPaymentStream } from './payment-stream.ts';
import { replayResult } from './replay.ts';
import { settlePayment } from './settle.ts';

const op = findOperation('veritrack.attest')!;
const input = { kind: 'model-eval', claim: { model: 'a' } };
const requestHash = canonicalSha256({ method: op.method, path: op.path, input });

/** A settler that moves funds (so the three-step saga runs) and counts its transfers. */
function countingSettler(found?: Settlement): Settler & { transfers: number } {
  return {
    mode: 'onchain',
    transfers: 0,
    async verify() {},
    async settle(payment: VerifiedPayment) {
      this.transfers++;
      return { ...localSettlement(payment), mode: 'onchain', demo: false };
    },
    async findSettled() {
      return found;
    },
  };
}

/** A store whose appends fail as a full or unreachable store's do, from the given append on. */
function failingFrom(store: EventStore, appendNumber: number): EventStore {
  let appends = 0;
  return {
    ...store,
    readStream: store.readStream.bind(store),
    readAll: store.readAll.bind(store),
    subscribeToAll: store.subscribeToAll.bind(store),
    close: store.close.bind(store),
    async appendToStream(stream, events, options) {
      if (++appends >= appendNumber) throw new EventStoreUnavailableError('no space left on device');
      return store.appendToStream(stream, events, options);
    },
  };
}

async function paidCall(deps: ServiceDeps, options: { validBefore?: number; now?: number } = {}): Promise<PaidCall> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const quote = await paymentRequired(op, deps.settings, deps.baseUrl);
  const signed = await signPayment(quote, { nowSeconds: now, ...(options.validBefore ? { authorization: { validBefore: String(options.validBefore) } } : {}) });
  const payment = await verifyPayment(decodePaymentHeader('PAYMENT-SIGNATURE', signed.header), op, deps.settings);
  return { op, input: op.input.parse(input), requestHash, payment, now };
}

function stepOf(deps: ServiceDeps, call: PaidCall, settler: Settler): SagaStep {
  const payer = call.payment.authorization.from.toLowerCase();
  return { deps, settler, call, payer, stream: paymentStreamName(payer, call.payment.authorization.nonce), writesAlone: () => false };
}

/** The service's dependencies on a fresh in-memory store, as the saga receives them. */
function freshDeps(): ServiceDeps {
  const { store, keyring, settings, baseUrl, stats } = testCallContext({ store: createMemoryEventStore() });
  return { store, keyring, settings, baseUrl, stats };
}

/** Claims the step's payment, which must not have been claimed before. */
async function claimFor(step: SagaStep) {
  const claimed = await claimPayment(step, authorizedOf(step));
  if (claimed.kind !== 'claimed') throw new Error('claim lost');
  return claimed.progress;
}

describe('the paid-call saga, one step at a time', () => {
  let deps: ServiceDeps;
  beforeEach(() => {
    deps = freshDeps();
  });

  it('claim: the first claim of a payment wins; a later claim for another request sees the first one stored', async () => {
    const step = stepOf(deps, await paidCall(deps), countingSettler());
    const first = await claimPayment(step, authorizedOf(step));
    expect(first).toMatchObject({ kind: 'claimed', progress: { authorized: { data: { requestHash } } } });
    const other = { ...step, call: { ...step.call, requestHash: 'f'.repeat(64) } };
    expect(await claimPayment(other, authorizedOf(other))).toMatchObject({ kind: 'claimed', progress: { authorized: { data: { requestHash } } } });
  });

  it('settle: moves the funds once and records it; a transfer already made is found, not repeated', async () => {
    const settler = countingSettler();
    const step = stepOf(deps, await paidCall(deps), settler);
    const progress = await claimFor(step);
    const settled = await settlePayment(step, progress);
    expect(settled.kind).toBe('settled');
    expect(settler.transfers).toBe(1);

    const found = countingSettler({ ...localSettlement(step.call.payment), mode: 'onchain', demo: false });
    const other = stepOf(deps, await paidCall(deps), found);
    const otherProgress = await claimFor(other);
    expect((await settlePayment(other, otherProgress)).kind).toBe('settled');
    expect(found.transfers).toBe(0);
  });

  it('settle: an unsettled claim whose authorization has expired is refused with nothing charged', async () => {
    const now = Math.floor(Date.now() / 1000);
    const settler = countingSettler();
    const step = stepOf(deps, await paidCall(deps, { now, validBefore: now + 60 }), settler);
    const progress = await claimFor(step);
    const late = { ...step, call: { ...step.call, now: now + 120 } };
    expect(await settlePayment(late, progress)).toMatchObject({ kind: 'stopped', outcome: { kind: 'rejected', reason: PAYMENT_REASONS.validBefore } });
    expect(settler.transfers).toBe(0);
  });

  it('settle: a store that fails after the transfer answers that the payment was taken', async () => {
    const step = stepOf({ ...deps, store: failingFrom(deps.store, 2) }, await paidCall(deps), countingSettler());
    const progress = await claimFor(step);
    expect(await settlePayment(step, progress)).toMatchObject({ kind: 'stopped', outcome: { kind: 'unavailable', charged: true } });
  });

  it('execute and sign: signs the record and stores it; replay then answers the same bytes', async () => {
    const step = stepOf(deps, await paidCall(deps), countingSettler());
    const progress = await claimFor(step);
    const settled = await settlePayment(step, progress);
    if (settled.kind !== 'settled') throw new Error('not settled');
    const signed = await executeAndSign(step, settled.progress);
    expect(signed.kind).toBe('signed');
    const stored = await readPaymentStream(deps.store, step.stream);
    expect(signed.kind === 'signed' && signed.body.sha256).toBe(stored.signed?.data.sha256);
    // The replay answers the same bytes, and the same place in the log (its leaf in the result log).
    expect(JSON.stringify(await replayResult(step, stored), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toBe(JSON.stringify(signed, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  });

  it('execute and sign: a store that fails after settlement answers that the payment was taken, and a retry completes', async () => {
    const settler = countingSettler();
    const step = stepOf(deps, await paidCall(deps), settler);
    const progress = await claimFor(step);
    const settled = await settlePayment(step, progress);
    if (settled.kind !== 'settled') throw new Error('not settled');
    const failing = { ...step, deps: { ...deps, store: failingFrom(deps.store, 1) } };
    expect(await executeAndSign(failing, settled.progress)).toMatchObject({ kind: 'unavailable', charged: true });
    expect((await executeAndSign(step, await readPaymentStream(deps.store, step.stream))).kind).toBe('signed');
    expect(settler.transfers).toBe(1);
  });
});

describe('a payment that already paid is found before its time window is checked', () => {
  let deps: ServiceDeps;
  beforeEach(() => {
    deps = freshDeps();
  });

  it('a stored result is replayed after validBefore has passed; a new payment that late is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    let clock = now * 1000;
    const gateway = createGateway(createLocalSettler(), { clock: () => clock });
    const quote = await paymentRequired(op, deps.settings, deps.baseUrl);
    const p = await signPayment(quote, { nowSeconds: now, authorization: { validBefore: String(now + 30) } });
    const req = { op, input: op.input.parse(input), requestHash, payment: { header: 'PAYMENT-SIGNATURE' as const, value: p.header } };
    const first = await gateway.handle(req, deps);
    expect(first.kind).toBe('paid');

    clock = (now + 3600) * 1000;
    const replayed = await gateway.handle(req, deps);
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(first));

    const late = await signPayment(quote, { nowSeconds: now, authorization: { validBefore: String(now + 30) } });
    const refused = await gateway.handle({ ...req, payment: { header: 'PAYMENT-SIGNATURE', value: late.header } }, deps);
    expect(refused).toMatchObject({ kind: 'payment-rejected', reason: PAYMENT_REASONS.validBefore });
  });

  it('a call settled but never answered is finished after validBefore, without a second transfer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const settler = countingSettler();
    const call = await paidCall(deps, { now, validBefore: now + 30 });
    const step = stepOf(deps, call, settler);
    const progress = await claimFor(step);
    expect((await settlePayment(step, progress)).kind).toBe('settled');

    const finished = await createPaidCallSaga(settler).run({ ...call, now: now + 3600 }, deps);
    expect(finished.kind).toBe('signed');
    expect(settler.transfers).toBe(1);
    expect((await deps.store.readStream(step.stream)).map((e) => e.type)).toEqual([PAYMENT_EVENT_TYPES.authorized, PAYMENT_EVENT_TYPES.settled, PAYMENT_EVENT_TYPES.signed]);
  });
});

describe('outputs answered beside the record', () => {
  it('are rebuilt on replay by running the command again, and must sign the stored digest', async () => {
    const deps = freshDeps();
    const { settings, baseUrl } = deps;
    let runs = 0;
    const withOutput = {
      ...op,
      outputBeside: true,
      command: {
        async execute(_input: unknown, ctx: { now: number }) {
          runs++;
          const output = Buffer.from('a large output').toString('base64');
          return { record: { kind: 'test-output', output_sha256: canonicalSha256(output), servedAt: ctx.now }, beside: { output } };
        },
      },
    };
    const gateway = createGateway(createLocalSettler());
    const quote = await paymentRequired(op, settings, baseUrl);
    const p = await signPayment(quote);
    const req = { op: withOutput, input: op.input.parse(input), requestHash, payment: { header: 'PAYMENT-SIGNATURE' as const, value: p.header } };
    const first = await gateway.handle(req, deps);
    const again = await gateway.handle(req, deps);
    expect(first).toMatchObject({ kind: 'paid', body: { output: Buffer.from('a large output').toString('base64') } });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(runs).toBe(2);
  });

  it('a rebuild that fails or refuses on replay answers a charged call to retry, never a refusal that reads as free', async () => {
    const deps = freshDeps();
    const { settings, baseUrl } = deps;
    let runs = 0;
    const refusingOnReplay = {
      ...op,
      outputBeside: true,
      command: {
        async execute(_input: unknown, ctx: { now: number }) {
          // As an engine thread's heap set lower since the first call would refuse.
          if (++runs > 1) throw new DomainRefusal(422, 'input_too_complex', 'this input needs more than the 64 MB heap of an engine thread', 'INVALID-INPUT');
          return { record: { kind: 'test-output', output_sha256: canonicalSha256('x'), servedAt: ctx.now }, beside: { output: 'x' } };
        },
      },
    };
    const gateway = createGateway(createLocalSettler());
    const p = await signPayment(await paymentRequired(op, settings, baseUrl));
    const req = { op: refusingOnReplay, input: op.input.parse(input), requestHash, payment: { header: 'PAYMENT-SIGNATURE' as const, value: p.header } };
    expect(await gateway.handle(req, deps)).toMatchObject({ kind: 'paid' });
    expect(await gateway.handle(req, deps)).toMatchObject({ kind: 'failed-after-charge' });
  });
});

describe('a command that cannot finish now (an engine stopped at its time limit)', () => {
  /** Stopped at its first run, as an engine on a loaded machine; signed at the next. */
  const stoppedOnce = (runs = { count: 0 }) => ({
    ...op,
    command: {
      async execute(raw: unknown, ctx: { now: number }) {
        if (++runs.count === 1) throw new UnavailableNowError('engine_timeout', 'the engine was stopped at its time limit of 200 ms');
        return op.command!.execute(raw, ctx as never);
      },
    },
  });

  it('after the transfer: 503 saying the payment was taken; the retry with the same payment completes without a second transfer', async () => {
    const deps = freshDeps();
    const settler = countingSettler();
    const call = { ...(await paidCall(deps)), op: stoppedOnce() };
    const saga = createPaidCallSaga(settler);
    expect(await saga.run(call, deps)).toEqual({ kind: 'unavailable', reason: 'engine_timeout', message: 'the engine was stopped at its time limit of 200 ms', charged: true });
    expect((await saga.run(call, deps)).kind).toBe('signed');
    expect(settler.transfers).toBe(1);
  });

  it('an engine on an engine thread is run before settling on any store: 503 with nothing charged, then the same payment completes once', async () => {
    const deps = freshDeps();
    const settler = countingSettler();
    const runs = { count: 0 };
    const stopped = stoppedOnce(runs);
    const call = { ...(await paidCall(deps)), op: { ...stopped, command: { ...stopped.command, runsOnEngineThread: true as const } } };
    const saga = createPaidCallSaga(settler);
    expect(await saga.run(call, deps)).toMatchObject({ kind: 'unavailable', reason: 'engine_timeout', charged: false });
    expect(settler.transfers).toBe(0);
    expect((await saga.run(call, deps)).kind).toBe('signed');
    expect(settler.transfers).toBe(1);
    // Measured before settling, then signed from that run: the engine ran once for the paid result.
    expect(runs.count).toBe(2);
  });

  it('an engine thread refusing the input (its heap) is answered before the funds move, on every retry', async () => {
    const deps = freshDeps();
    const settler = countingSettler();
    const outgrowing = {
      ...op,
      command: {
        runsOnEngineThread: true as const,
        async execute(): Promise<never> {
          throw new DomainRefusal(422, 'input_too_complex', 'this input needs more than the 512 MB heap of an engine thread', 'INVALID-INPUT');
        },
      },
    };
    const call = { ...(await paidCall(deps)), op: outgrowing };
    const saga = createPaidCallSaga(settler);
    for (let attempt = 0; attempt < 2; attempt++)
      expect(await saga.run(call, deps)).toMatchObject({ kind: 'refused', refusal: { status: 422, error: 'input_too_complex' } });
    expect(settler.transfers).toBe(0);
  });

  it('measured before settling (a store that limits appends): 503 with nothing charged, then the same payment completes', async () => {
    const deps = { ...freshDeps(), store: createMemoryEventStore({ appendLimitBytes: 64 * 1024 }) };
    const settler = countingSettler();
    const call = { ...(await paidCall(deps)), op: stoppedOnce() };
    const saga = createPaidCallSaga(settler);
    expect(await saga.run(call, deps)).toMatchObject({ kind: 'unavailable', reason: 'engine_timeout', charged: false });
    expect(settler.transfers).toBe(0);
    expect((await saga.run(call, deps)).kind).toBe('signed');
    expect(settler.transfers).toBe(1);
  });
});

describe('a result the event store cannot hold in one append (EventStoreDB: MaxAppendSize)', () => {
  const LIMIT = 3 * 1024;
  const bigInput = { kind: 'model-eval', claim: { notes: 'x'.repeat(3_500) } };
  const limitedDeps = (): ServiceDeps => ({ ...freshDeps(), store: createMemoryEventStore({ appendLimitBytes: LIMIT }) });
  const asCall = (call: PaidCall, raw: object): PaidCall => ({ ...call, input: op.input.parse(raw), requestHash: canonicalSha256({ method: op.method, path: op.path, input: raw as never }) });

  it('is refused 413 before the funds move, and again on a retry with the same payment', async () => {
    const deps = limitedDeps();
    const settler = countingSettler();
    const saga = createPaidCallSaga(settler);
    const call = asCall(await paidCall(deps), bigInput);
    for (let attempt = 0; attempt < 2; attempt++) {
      const outcome = await saga.run(call, deps);
      expect(outcome).toMatchObject({ kind: 'refused', refusal: { status: 413, error: 'result_too_large', message: expect.stringContaining(`at most ${LIMIT}`) } });
    }
    expect(settler.transfers).toBe(0);
    const stream = stepOf(deps, call, settler).stream;
    expect((await deps.store.readStream(stream)).map((e) => e.type)).toEqual([PAYMENT_EVENT_TYPES.authorized]);
  });

  it('is not answered "nothing was charged" when an earlier attempt already moved the funds', async () => {
    const deps = limitedDeps();
    const call = asCall(await paidCall(deps), bigInput);
    const settler = countingSettler({ ...localSettlement(call.payment), mode: 'onchain', demo: false });
    const outcome = await createPaidCallSaga(settler).run(call, deps);
    expect(outcome).toMatchObject({ kind: 'failed-after-charge' });
    expect(settler.transfers).toBe(0);
  });

  it('a result that fits runs its command once, before settling, and is signed after', async () => {
    const deps = limitedDeps();
    const settler = countingSettler();
    let runs = 0;
    const counted = { ...op, command: { async execute(raw: unknown, ctx: { now: number }) { runs++; return op.command!.execute(raw, ctx as never); } } };
    const outcome = await createPaidCallSaga(settler).run({ ...(await paidCall(deps)), op: counted }, deps);
    expect(outcome.kind).toBe('signed');
    expect(runs).toBe(1);
    expect(settler.transfers).toBe(1);
  });

  it('a command that keeps state is refused before settling when its own append could not be held', async () => {
    const deps = limitedDeps();
    const settler = countingSettler();
    const keepsState = {
      ...op,
      command: {
        async execute(_raw: unknown, ctx: { store: EventStore; paymentId: string; now: number }) {
          await ctx.store.appendToStream(`state-${ctx.paymentId}`, [{ id: randomUUID(), type: 'Kept', data: { text: 'x'.repeat(LIMIT) } }]);
          return { record: { kind: 'kept', at: ctx.now } };
        },
      },
    };
    const outcome = await createPaidCallSaga(settler).run({ ...(await paidCall(deps)), op: keepsState }, deps);
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { status: 413, error: 'result_too_large' } });
    expect(settler.transfers).toBe(0);
  });

  const keepingState = (record: (ctx: { now: number }) => Record<string, unknown>, runs = { count: 0 }) => ({
    ...op,
    command: {
      async execute(_raw: unknown, ctx: { store: EventStore; paymentId: string; now: number }) {
        runs.count++;
        const stream = `state-${ctx.paymentId}`;
        // Reads back what it appended, as a decider does: a staged append must be seen.
        await ctx.store.appendToStream(stream, [{ id: randomUUID(), type: 'Kept', data: { n: 1 } }], { expectedRevision: 'no_stream' });
        const kept = await ctx.store.readStream(stream);
        if (kept.length !== 1) throw new Error(`read back ${kept.length} events`);
        return { record: { kind: 'kept', at: ctx.now, ...record(ctx) } };
      },
    },
  });

  it('a command that keeps state is refused before settling when its signed result could not be held, though its own append could', async () => {
    const deps = limitedDeps();
    const settler = countingSettler();
    const call = await paidCall(deps);
    const outcome = await createPaidCallSaga(settler).run({ ...call, op: keepingState(() => ({ notes: 'x'.repeat(LIMIT) })) }, deps);
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { status: 413, error: 'result_too_large' } });
    expect(settler.transfers).toBe(0);
    // Nothing the measuring run appended reached the store.
    expect(await deps.store.readStream(`state-${stepOf(deps, call, settler).stream}`)).toEqual([]);
  });

  it('a command that keeps state and fits is measured, settled, then run for real: its state appended once', async () => {
    const deps = limitedDeps();
    const settler = countingSettler();
    const call = await paidCall(deps);
    const runs = { count: 0 };
    const outcome = await createPaidCallSaga(settler).run({ ...call, op: keepingState(() => ({ notes: 'small' }), runs) }, deps);
    expect(outcome.kind).toBe('signed');
    expect(runs.count).toBe(2);
    expect(settler.transfers).toBe(1);
    expect((await deps.store.readStream(`state-${stepOf(deps, call, settler).stream}`)).map((e) => e.type)).toEqual(['Kept']);
  });

  /** A command whose decision refuses: the state it decides on changed after `authorize` passed. */
  const refusingAfterAuthorize = {
    ...op,
    command: {
      async authorize() {
        return undefined;
      },
      async execute(_raw: unknown, ctx: { store: EventStore; paymentId: string }): Promise<never> {
        await ctx.store.appendToStream(`state-${ctx.paymentId}`, [{ id: randomUUID(), type: 'Kept', data: {} }]);
        throw new DomainRefusal(403, 'forbidden', 'this state belongs to another payer');
      },
    },
  };

  it('a command whose decision refuses when measured is refused before the funds move, on every retry', async () => {
    const deps = limitedDeps();
    const settler = countingSettler();
    const call = { ...(await paidCall(deps)), op: refusingAfterAuthorize };
    const saga = createPaidCallSaga(settler);
    for (let attempt = 0; attempt < 2; attempt++) expect(await saga.run(call, deps)).toMatchObject({ kind: 'refused', refusal: { status: 403, error: 'forbidden' } });
    expect(settler.transfers).toBe(0);
  });

  it('on a store with no limit, the refusal comes after the transfer: it says so, and answers the same on a retry', async () => {
    const deps = freshDeps();
    const settler = countingSettler();
    const call = { ...(await paidCall(deps)), op: refusingAfterAuthorize };
    const saga = createPaidCallSaga(settler);
    const first = await saga.run(call, deps);
    expect(first).toMatchObject({ kind: 'refused-after-charge', refusal: { status: 403, error: 'forbidden' } });
    expect(await saga.run(call, deps)).toEqual(first);
    expect(settler.transfers).toBe(1);
  });

  it('with local settlement nothing is written, so the same payment can still pay for a smaller request', async () => {
    const deps = limitedDeps();
    const gateway = createGateway(createLocalSettler());
    const payment = await signPayment(await paymentRequired(op, deps.settings, deps.baseUrl));
    const request = (raw: object) => ({ op, input: op.input.parse(raw), requestHash: canonicalSha256({ method: op.method, path: op.path, input: raw as never }), payment: { header: 'PAYMENT-SIGNATURE' as const, value: payment.header } });
    expect(await gateway.handle(request(bigInput), deps)).toMatchObject({ kind: 'refused', refusal: { status: 413 } });
    const payer = payment.authorization.from.toLowerCase();
    expect(await deps.store.readStream(paymentStreamName(payer, payment.authorization.nonce))).toEqual([]);
    expect((await gateway.handle(request(input), deps)).kind).toBe('paid');
  });
});
