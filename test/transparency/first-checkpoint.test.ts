import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { createRotatingKeyring } from '../../src/signing/keyring.ts';
import { CHECKPOINT_ISSUED, RESULT_LOG_STREAM } from '../../src/transparency/events.ts';
import { startResultLog, type ResultLog } from '../../src/transparency/result-log.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet } as never;
// Five generations of keys; the fourth (3) is the current one, the fifth starts later.
const keyring = createRotatingKeyring(
  [0, 1, 2, 3, 4].map((generation) => ({ generation, validFrom: generation * 1_000, secret: `first-checkpoint-secret-${generation}-0123456789abcdef` })),
  () => 3_500,
);
const logKeyOf = (generation: number) => keyring.history().find((key) => key.family === 'log' && key.generation === generation)!.keyId;
/** Who signed each of 1,000 checkpoints: generation 0, then 1, then 3 (generation 2 signed none: its window saw no new result). */
const signerAt = (revision: number) => (revision < 500 ? 0 : revision < 800 ? 1 : 3);

/** The store, and the number of checkpoint events its reads of the result log's stream answered. */
function counting(store: EventStore): { store: EventStore; checkpointsRead: () => number } {
  let read = 0;
  return {
    checkpointsRead: () => read,
    store: {
      ...store,
      readStream: async (stream, options) => {
        const events = await store.readStream(stream, options);
        if (stream === RESULT_LOG_STREAM) read += events.length;
        return events;
      },
    },
  };
}

let resultLog: ResultLog | undefined;
afterEach(async () => {
  await resultLog?.stop();
});

describe('the first checkpoint each log key signed (the key history route)', () => {
  it('is found in about log2 of the checkpoints read, not by reading them all, and a key that signed none has none', async () => {
    const plain = createMemoryEventStore();
    await plain.appendToStream(
      RESULT_LOG_STREAM,
      Array.from({ length: 1_000 }, (_, revision) => ({
        id: randomUUID(),
        type: CHECKPOINT_ISSUED,
        data: { origin: 'test/result-log', tree_size: revision + 1, root_hash: '0'.repeat(64), issued_at: revision, key_id: logKeyOf(signerAt(revision)), note: `checkpoint ${revision}` },
      })),
    );
    const { store, checkpointsRead } = counting(plain);
    resultLog = await startResultLog(store, keyring, { checkpointIntervalMs: 3_600_000, log: quiet });
    const firstOf = async (generation: number) => {
      const before = checkpointsRead();
      const first = await resultLog!.firstCheckpointSignedBy(logKeyOf(generation));
      return { treeSize: first?.tree_size, read: checkpointsRead() - before };
    };

    for (const [generation, treeSize] of [[1, 501], [3, 801], [0, 1], [2, undefined], [4, undefined]] as const) {
      const { treeSize: found, read } = await firstOf(generation);
      expect(found, `generation ${generation}`).toBe(treeSize);
      // ten halvings of 1,000 revisions and the one found
      expect(read, `generation ${generation}`).toBeLessThanOrEqual(11);
    }
    // Found once, kept: no read the next time.
    expect(await firstOf(1)).toEqual({ treeSize: 501, read: 0 });
  });
});
