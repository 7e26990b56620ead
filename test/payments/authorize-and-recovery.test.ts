import fc from 'fast-check';
import { hashTypedData, recoverTypedDataAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog/index.ts';
import type { PricedOperation } from '../../src/kernel/operation.ts';
import { transferAuthorizationDigest } from '../../src/payments/x402/eip3009-digest.ts';
import { createGateway } from '../../src/payments/gateway.ts';
import { recoverSigner, recoverSignerOffTheLoop, recoverSignerWithNoble, recoveryBackend, recoveryThread } from '../../src/payments/x402/recover-signer.ts';
import { createLocalSettler } from '../../src/payments/settlers/local.ts';
import { canonicalSha256 } from '../../src/signing/hash.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fetchQuote, signPayment, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../support/x402-payments.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';
import { DomainRefusal } from '../../src/kernel/decider.ts';
import { eventId } from '../../src/events/event-ids.ts';
import { openEventStore } from '../../src/events/open-store.ts';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const domain = { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: USDC } as const;

describe('EIP-3009 signer recovery', () => {
  it('uses the native backend on this machine', () => {
    expect(recoveryBackend).toBe('native');
  });

  it('agrees with viem (digest and recovered address), native and noble alike', async () => {
    const accounts = Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey()));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        async (who, value, validBefore, nonceBytes, toBytes) => {
          const account = accounts[who]!;
          const message = {
            from: account.address,
            to: `0x${Buffer.from(toBytes).toString('hex')}` as Hex,
            value,
            validAfter: 0n,
            validBefore,
            nonce: `0x${Buffer.from(nonceBytes).toString('hex')}` as Hex,
          };
          const typed = { domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization' as const, message };
          const signature = await account.signTypedData(typed);
          const digest = transferAuthorizationDigest(
            { name: domain.name, version: domain.version, chainId: 8453n, verifyingContract: USDC },
            { ...message, value: String(value), validAfter: '0', validBefore: String(validBefore) },
          );
          expect(`0x${Buffer.from(digest).toString('hex')}`).toBe(hashTypedData(typed));
          const expected = (await recoverTypedDataAddress({ ...typed, signature })).toLowerCase();
          expect(recoverSigner(digest, signature)).toBe(expected);
          expect(recoverSignerWithNoble(digest, signature)).toBe(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('recovers payments that come together on the recovery thread, each as viem does', async () => {
    const accounts = Array.from({ length: 3 }, () => privateKeyToAccount(generatePrivateKey()));
    const payments = await Promise.all(
      Array.from({ length: 48 }, async (_, i) => {
        const account = accounts[i % 3]!;
        const message = { from: account.address, to: USDC as Hex, value: BigInt(i + 1), validAfter: 0n, validBefore: 10n ** 10n, nonce: `0x${i.toString(16).padStart(64, '0')}` as Hex };
        const typed = { domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization' as const, message };
        const signature = await account.signTypedData(typed);
        // Every fourth one signed by the account, but presented for another message: it recovers someone else.
        const digest = Uint8Array.from(Buffer.from(hashTypedData(i % 4 === 3 ? { ...typed, message: { ...message, value: 0n } } : typed).slice(2), 'hex'));
        return { digest, signature, expected: i % 4 === 3 ? undefined : account.address.toLowerCase() };
      }),
    );
    const deadline = Date.now() + 30_000;
    const before = recoveryThread!.answered.onThread;
    // The thread starts at the first batch; the batches after it are recovered there.
    while (recoveryThread!.answered.onThread === before && Date.now() < deadline) {
      const signers = await Promise.all(payments.map(({ digest, signature }) => recoverSignerOffTheLoop(digest, signature)));
      payments.forEach(({ expected }, i) => (expected === undefined ? expect(signers[i]).not.toBe(accounts[i % 3]!.address.toLowerCase()) : expect(signers[i]).toBe(expected)));
      payments.forEach(({ digest, signature }, i) => expect(signers[i]).toBe(recoverSigner(digest, signature)));
    }
    expect(recoveryThread!.answered.onThread).toBeGreaterThan(before);
  });

  it('rejects malleable (high-s) and malformed signatures', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = { from: account.address, to: account.address, value: 1n, validAfter: 0n, validBefore: 10n, nonce: `0x${'00'.repeat(32)}` as Hex };
    const typed = { domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization' as const, message };
    const signature = await account.signTypedData(typed);
    const digest = Uint8Array.from(Buffer.from(hashTypedData(typed).slice(2), 'hex'));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = parseInt(signature.slice(130), 16);
    const flipped = `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(recoverSigner(digest, signature)).toBe(account.address.toLowerCase());
    expect(recoverSigner(digest, flipped)).toBeUndefined();
    expect(recoverSigner(digest, '0x1234')).toBeUndefined();
    expect(recoverSigner(digest, `0x${'00'.repeat(65)}`)).toBeUndefined();
  });
});

describe('command.authorize runs after verification and before anything is claimed or charged', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('a refusal answers its status, writes nothing, and leaves the payment usable for an allowed request', async () => {
    const veritrack = catalog.find((r) => r.id === 'veritrack.attest') as PricedOperation;
    type Input = { kind: string; claim: Record<string, unknown> };
    const guarded: PricedOperation = {
      ...veritrack,
      command: {
        async authorize(input, ctx) {
          const owner = (input as Input).claim['owner'];
          return owner === ctx.payer ? undefined : { status: 403, error: 'forbidden', message: 'that state belongs to another payer' };
        },
        execute: veritrack.command!.execute,
      },
    };
    const url = `${service.url}${veritrack.path}`;
    const quote = await fetchQuote(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kind":"x","claim":{}}' });
    const account = privateKeyToAccount(generatePrivateKey());
    const p = await signPayment(quote, { account });
    const gateway = createGateway(createLocalSettler());
    const request = (input: Input) => ({
      op: guarded,
      input,
      requestHash: canonicalSha256({ method: guarded.method, path: guarded.path, input }),
      payment: { header: 'PAYMENT-SIGNATURE' as const, value: p.header },
    });

    const refused = await gateway.handle(request({ kind: 'x', claim: { owner: '0x2222222222222222222222222222222222222222' } }), service.deps);
    expect(refused).toMatchObject({ kind: 'refused', refusal: { status: 403, error: 'forbidden' } });
    const stream = paymentStreamName(account.address, p.authorization.nonce);
    expect(await service.deps.store.readStream(stream)).toEqual([]);

    const allowed = await gateway.handle(request({ kind: 'x', claim: { owner: account.address.toLowerCase() } }), service.deps);
    expect(allowed.kind).toBe('paid');
    expect((await service.deps.store.readStream(stream)).map((e) => e.type)).toEqual(['PaymentAuthorized', 'PaymentSettled', 'ResultSigned']);
  });
});

describe('paid calls racing for one state: a refusal is never found after the payment is taken', () => {
  let service: TestService;
  beforeAll(async () => {
    // The durable file log, as `npm start` runs: its appends wait for the disk, where calls interleave.
    service = await startTestService({}, (settings) => openEventStore(settings, { info: () => {}, warn: () => {}, error: () => {} }));
  });
  afterAll(async () => {
    await service?.stop();
  });

  const paidPost = async (path: string, body: unknown, payment: string) => {
    const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': payment }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { message?: string } };
  };
  const paymentFor = async (path: string, body: unknown = { agent_id: 'quote', key: 'k', value: 1 }, account = privateKeyToAccount(generatePrivateKey())) => {
    const quote = await fetchQuote(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await signPayment(quote, { account })).header;
  };

  it("one payer opening one agent's budget with different caps at once: one budget, the others refused free, their payments still good", async () => {
    for (let round = 0; round < 5; round++) {
      const owner = privateKeyToAccount(generatePrivateKey());
      const agent = `race-budget-${round}-${Date.now()}`;
      const reserve = (agent_id: string, cap: number) => ({ agent_id, amount: '1', purpose: 'calls', ttl_seconds: 600, budget: { cap: String(cap), period: 86_400 } });
      const payments = await Promise.all(Array.from({ length: 6 }, (_, i) => paymentFor('/v1/governance/reserve', reserve(agent, 20 + i), owner)));
      const answers = await Promise.all(payments.map((payment, i) => paidPost('/v1/governance/reserve', reserve(agent, 20 + i), payment)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const [i, refused] of answers.entries()) {
        if (refused.status !== 409) continue;
        expect(refused.body.message).toMatch(/nothing was charged$/);
        // Nothing was taken: the same authorization pays for another agent of the payer's.
        expect((await paidPost('/v1/governance/reserve', reserve(`${agent}-own-${i}`, 20 + i), payments[i]!)).status).toBe(200);
      }
    }
  });

  it('payers opening one agent_id at once: each opens a budget of its own, none refused', async () => {
    const agent = `race-agent-id-${Date.now()}`;
    const reserve = { agent_id: agent, amount: '1', purpose: 'calls', ttl_seconds: 600, budget: { cap: '20', period: 86_400 } };
    const payments = await Promise.all(Array.from({ length: 6 }, () => paymentFor('/v1/governance/reserve', reserve)));
    const answers = await Promise.all(payments.map((payment) => paidPost('/v1/governance/reserve', reserve, payment)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const leases = answers.map((r) => (r.body as { evidenceCore: { owner: string; available: string } }).evidenceCore);
    expect(leases.map((l) => l.available)).toEqual(['19', '19', '19', '19', '19', '19']);
    expect(new Set(leases.map((l) => l.owner)).size).toBe(6);
  });

  it('payers creating one memory (agent_id, key) at once: each opens a store of its own at version 1, none refused', async () => {
    const agent = `did:web:race-${Date.now()}`;
    const payments = await Promise.all(Array.from({ length: 6 }, () => paymentFor('/v1/memory/put')));
    const answers = await Promise.all(payments.map((payment, i) => paidPost('/v1/memory/put', { agent_id: agent, key: 'k', value: i }, payment)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const sealed = answers.map((r) => (r.body as { sealed: { owner: string; version: number } }).sealed);
    expect(sealed.map((s) => s.version)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(new Set(sealed.map((s) => s.owner)).size).toBe(6);
  });

  it("an owner settling one lease several times at once: one settlement, the others refused free", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const agent = `race-agent-${Date.now()}`;
    const reserve = { agent_id: agent, amount: '5', purpose: 'calls', ttl_seconds: 600, budget: { cap: '20', period: 86_400 } };
    const reserved = await paidPost('/v1/governance/reserve', reserve, await paymentFor('/v1/governance/reserve', reserve, owner));
    expect(reserved.status).toBe(200);
    const leaseId = (reserved.body as { evidenceCore: { lease_id: string } }).evidenceCore.lease_id;
    const settles = ['1', '2', '3', '4'].map((actual) => ({ lease_id: leaseId, actual_amount: actual }));
    const payments = await Promise.all(settles.map((body) => paymentFor('/v1/governance/settle', body, owner)));
    const answers = await Promise.all(settles.map((body, i) => paidPost('/v1/governance/settle', body, payments[i]!)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    for (const refused of answers.filter((r) => r.status === 409)) expect(refused.body.message).toMatch(/nothing was charged$/);
  });

  it('a refusal the command finds after the claim (another process changed the state) says the payment was taken, and answers the same again', async () => {
    const veritrack = catalog.find((r) => r.id === 'veritrack.attest') as PricedOperation;
    const changedMeanwhile: PricedOperation = {
      ...veritrack,
      command: {
        async authorize() {
          return undefined;
        },
        async execute(_input, ctx) {
          // The command's first append claims the payment; its decision then finds the state taken.
          const stream = `race-demo-${ctx.paymentId}`;
          await ctx.store.appendToStream(stream, [{ id: eventId(ctx.paymentId, stream, 0), type: 'Touched', data: {} }]);
          throw new DomainRefusal(403, 'forbidden', 'this state belongs to another payer');
        },
      },
    };
    const body = { kind: 'x', claim: {} };
    const account = privateKeyToAccount(generatePrivateKey());
    const quote = await fetchQuote(`${service.url}${veritrack.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const payment = await signPayment(quote, { account });
    const gateway = createGateway(createLocalSettler());
    const call = () => gateway.handle({ op: changedMeanwhile, input: body, requestHash: canonicalSha256({ method: 'POST', path: veritrack.path, input: body }), payment: { header: 'PAYMENT-SIGNATURE', value: payment.header } }, service.deps);

    const first = await call();
    expect(first).toMatchObject({ kind: 'refused-after-charge', refusal: { status: 403, error: 'forbidden' } });
    const again = await call();
    expect(again).toEqual(first);
    const stream = paymentStreamName(account.address, payment.authorization.nonce);
    expect((await service.deps.store.readStream(stream)).map((e) => e.type)).toEqual(['PaymentAuthorized', 'PaymentSettled']);
  });
});
