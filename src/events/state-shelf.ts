import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stderrLogger, type EventLogger } from './file-log/logger.ts';
import type { StateShelf } from './port.ts';

/** The file log's directory of state snapshots: safe to delete while the service is stopped (each state is folded from its stream's start at its next call). */
export const STATES_DIRECTORY = 'states';
const SUFFIX = '.state';
const TEMPORARY_SUFFIX = '.tmp';

export interface ClosableStateShelf extends StateShelf {
  /** Waits for the puts under way; any put after it is refused (the store is closing: the file log's lock is about to be released). */
  close(): Promise<void>;
}

/**
 * A StateShelf in a directory (beside the file log, or in DATA_DIR for EventStoreDB): one file a
 * name, named by the name's SHA-256 (a stream's name is the caller's text and may hold anything).
 * A put writes a temporary file and renames it into place, so a reader finds the old text or the
 * new one; no fsync, since a text torn by a power cut fails the checksum its reader checks
 * (kernel/state-snapshots.ts) and the state is folded from the log instead. Temporary files a
 * crash left are removed at open. The close waits for the puts under way and refuses any later.
 *
 * Which names have a text is held in memory (one entry a long stream, read from the directory at
 * open), so asking for a stream that has none, as every call on a short stream does, costs no
 * system call.
 *
 * A put that fails (a full disk) costs only the speed of a later fold, and its caller goes on; it
 * is logged, once until a put succeeds again, so that a shelf that stopped working is seen.
 */
export async function openStateShelf(dir: string, log: EventLogger = stderrLogger): Promise<ClosableStateShelf> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const held = new Set<string>();
  for (const entry of await readdir(dir)) {
    if (entry.endsWith(SUFFIX)) held.add(entry);
    else if (entry.endsWith(TEMPORARY_SUFFIX)) await rm(join(dir, entry), { force: true });
  }
  let temporaries = 0;
  let closed = false;
  let failing = false;
  const puts = new Set<Promise<void>>();
  const fileOf = (name: string): string => createHash('sha256').update(name).digest('hex') + SUFFIX;
  return {
    async get(name) {
      if (held.size === 0) return undefined;
      const file = fileOf(name);
      if (!held.has(file)) return undefined;
      try {
        return await readFile(join(dir, file), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        held.delete(file);
        return undefined;
      }
    },
    put(name, text) {
      if (closed) return Promise.reject(new Error('the state shelf is closed'));
      const file = fileOf(name);
      const temporary = join(dir, `${file}.${process.pid}.${++temporaries}${TEMPORARY_SUFFIX}`);
      const put = (async () => {
        try {
          await writeFile(temporary, text, { mode: 0o600 });
          await rename(temporary, join(dir, file));
          held.add(file);
          failing = false;
        } catch (err) {
          if (!failing) log.warn({ dir, error: (err as Error).message }, 'state snapshot not written: long streams are folded from their events until a snapshot can be written again');
          failing = true;
          throw err;
        } finally {
          await rm(temporary, { force: true });
        }
      })();
      puts.add(put);
      return put.finally(() => puts.delete(put));
    },
    async drop(name) {
      const file = fileOf(name);
      held.delete(file);
      await rm(join(dir, file), { force: true });
    },
    encodeFailed(name, error) {
      // Not once only, as a failing put is: a codec's bug is not a state of the disk, and a
      // snapshot is due at most once every thousand or so events of a stream.
      log.error({ dir, snapshot: name, error: error.message }, "state snapshot not made: its state's codec failed (a bug); the stream is folded from its events until a snapshot can be made");
    },
    async close() {
      closed = true;
      await Promise.allSettled(puts);
    },
  };
}
