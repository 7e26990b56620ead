import { Worker } from 'node:worker_threads';
import { sign, generatePrivateKey } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeRecoverPublicKey } from './libsecp256k1.ts';
import { RecoveryThread } from './recovery-thread.ts';

const recoverHere = nativeRecoverPublicKey();

interface Case {
  signature64: Uint8Array;
  recid: number;
  digest: Uint8Array;
}

/** Signed digests, and every fifth one a signature whose r is not a field element (it does not recover). */
async function cases(count: number): Promise<Case[]> {
  const privateKey = generatePrivateKey();
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const digest = Uint8Array.from(Buffer.from(`${i.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`, 'hex'));
      const signature = Buffer.from((await sign({ hash: `0x${Buffer.from(digest).toString('hex')}`, privateKey, to: 'hex' })).slice(2), 'hex');
      if (i % 5 === 4) signature.fill(0xff, 0, 32);
      return { signature64: signature.subarray(0, 64), recid: signature[64]! - 27, digest };
    }),
  );
}

function expected(c: Case): string | undefined {
  try {
    return Buffer.from(recoverHere(c.signature64, c.recid, c.digest)).toString('hex');
  } catch {
    return undefined;
  }
}

const recoverAll = (thread: RecoveryThread, all: Case[]) => Promise.all(all.map(async (c) => {
  const key = await thread.recover(c.signature64, c.recid, c.digest);
  return key && Buffer.from(key).toString('hex');
}));

/** Sends batches until one is answered on the thread (it starts at the first batch of two or more). */
async function untilThreadAnswers(thread: RecoveryThread, all: Case[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (thread.answered.onThread === 0) {
    if (Date.now() > deadline) throw new Error('the recovery thread never answered');
    await recoverAll(thread, all.slice(0, 8));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let thread: RecoveryThread | undefined;
afterEach(async () => {
  await thread?.close();
  thread = undefined;
});

describe('the recovery thread', () => {
  it('answers requests made together on its thread, each with the key the loop would recover, undefined where none recovers', async () => {
    const all = await cases(64);
    thread = new RecoveryThread(recoverHere);
    await untilThreadAnswers(thread, all);
    const before = { ...thread.answered };
    expect(await recoverAll(thread, all)).toEqual(all.map(expected));
    expect(thread.answered.onThread - before.onThread).toBe(64);
    expect(thread.answered.onLoop).toBe(before.onLoop);
    expect(all.map(expected).filter((key) => key === undefined)).toHaveLength(12);
  });

  it('recovers a request alone on the loop: nothing to batch it with', async () => {
    const [one] = await cases(1);
    thread = new RecoveryThread(recoverHere);
    expect(await recoverAll(thread, [one!])).toEqual([expected(one!)]);
    expect(thread.answered).toEqual({ onThread: 0, onLoop: 1 });
  });

  it('loses no call when its thread dies with batches in flight, and recovers on the loop from then on', async () => {
    const all = await cases(40);
    // A thread that comes up, then exits at its first batch without answering.
    let exitCode: number | undefined;
    const dying = () => {
      const worker = new Worker('require("node:worker_threads").parentPort.on("message", () => process.exit(3))', { eval: true });
      worker.once('exit', (code) => (exitCode = code));
      return worker;
    };
    thread = new RecoveryThread(recoverHere, { startWorker: dying });
    const deadline = Date.now() + 20_000;
    // Until a batch has gone to the thread and the thread has died with it, every answer must still be right.
    while (exitCode === undefined && Date.now() < deadline) {
      expect(await recoverAll(thread, all)).toEqual(all.map(expected));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(exitCode).toBe(3);
    expect(thread.answered.onThread).toBe(0);
    const afterDeath = thread.answered.onLoop;
    expect(await recoverAll(thread, all)).toEqual(all.map(expected));
    expect(thread.answered.onLoop - afterDeath).toBe(40);
  });

  it('after close, recovers everything on the loop', async () => {
    const all = await cases(16);
    thread = new RecoveryThread(recoverHere);
    await untilThreadAnswers(thread, all);
    await thread.close();
    const before = thread.answered.onThread;
    expect(await recoverAll(thread, all)).toEqual(all.map(expected));
    expect(thread.answered.onThread).toBe(before);
  });

  it('ends its thread when idle and starts it again when calls come together', async () => {
    const all = await cases(16);
    thread = new RecoveryThread(recoverHere, { idleMs: 10 });
    await untilThreadAnswers(thread, all);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = thread.answered.onThread;
    const loopBefore = thread.answered.onLoop;
    // The first batch after the idle end starts the thread and is recovered on the loop meanwhile.
    expect(await recoverAll(thread, all)).toEqual(all.map(expected));
    expect(thread.answered.onLoop - loopBefore).toBe(16);
    const deadline = Date.now() + 20_000;
    while (thread.answered.onThread === before && Date.now() < deadline) await recoverAll(thread, all);
    expect(thread.answered.onThread).toBeGreaterThan(before);
  });
});
