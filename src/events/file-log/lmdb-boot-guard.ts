import { statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { currentBootId } from './boot-id.ts';
import { lmdbFileProblem } from './lmdb-meta-page.ts';
import { tolerateOrphanedCommitFailures, TurnWrites } from './lmdb-turn.ts';

/**
 * LMDB environments that are caches of the event log (the log's index, the result log's store)
 * commit without fsync where the kernel gives a boot id: unsynced, the page cache merges their
 * random writes, and a process crash loses nothing. Only a machine crash can leave such a file
 * inconsistent, so each records the boot id that opened it and its clean close, and one left open
 * by an earlier boot is rebuilt from the log. Where no boot id is to be had, commits are synced
 * as usual.
 */
export const BOOT_ID = currentBootId();

/** Which boot of the machine opened an environment last, and whether it closed it. */
export interface OpenedBy {
  bootId: string;
  closed: boolean;
}

const OPENED_BY = 'opened-by';

/**
 * A writer maps at least 256 MiB, and never less than the file. lmdb-js grows a full map by
 * mapping the file again, twice as large, and keeps every earlier mapping for the process's life
 * (for readers still on them): each growth left the pages already touched resident a second time,
 * most of the growth of RSS under a long paid load. Started at its default 128 KiB, the event
 * index's map grew eight times in a minute of paid calls.
 */
const MIN_MAP_BYTES = 256 * 1024 * 1024;

/**
 * A writer's options: unsynced where a boot id guards it; the map sized ahead. Never written
 * through the map (WRITEMAP): the map makes the file as large as itself, sparse, and a page the
 * file system cannot allocate (a full disk) ends the process with SIGBUS where a write would
 * fail with ENOSPC, which a commit reports and the writer retries. Writing through the map saved
 * a copy a page, which the paid call and the soak did not show (docs/event-store.md).
 */
function guardedWriterOptions(dir: string): { noSync: boolean; mapSize: number } {
  return { noSync: BOOT_ID !== undefined, mapSize: Math.max(MIN_MAP_BYTES, statSync(join(dir, 'data.mdb'), { throwIfNoEntry: false })?.size ?? 0) };
}

/**
 * Opens such an environment at `dir`: its file checked first (lmdb-js ends the process on a
 * damaged one: this throws instead, and the caller rebuilds the cache), a writer with the options
 * above and lmdb-js's orphaned commit failures tolerated (lmdb-turn.ts).
 */
export function openCacheEnvironment(dir: string, mode: { readOnly: boolean }): RootDatabase {
  const problem = lmdbFileProblem(dir);
  if (problem) throw new Error(problem);
  const common = { path: dir, compression: false, maxDbs: 4, cache: false };
  if (mode.readOnly) return open(Object.assign(common, { readOnly: true }));
  tolerateOrphanedCommitFailures();
  return open(Object.assign(common, guardedWriterOptions(dir)));
}

/** At a writer's open: whether an earlier boot left the environment open (a machine crash). Then marks it opened by this boot. */
export function openedAfterMachineCrash<T>(meta: Database<T | OpenedBy, string>): boolean {
  if (BOOT_ID === undefined) return false;
  const opened = meta.get(OPENED_BY) as OpenedBy | undefined;
  meta.putSync(OPENED_BY, { bootId: BOOT_ID, closed: false });
  return opened !== undefined && !opened.closed && opened.bootId !== BOOT_ID;
}

/** At a writer's close: everything synced first, then the clean close recorded and synced. */
export async function recordCleanClose<T>(env: RootDatabase, meta: Database<T | OpenedBy, string>): Promise<void> {
  if (BOOT_ID === undefined) return;
  await syncEnv(env);
  // Through TurnWrites: a failed commit (a full disk) names its cause and leaves nothing unhandled.
  const mark = new TurnWrites();
  mark.add(meta.put(OPENED_BY, { bootId: BOOT_ID, closed: true }));
  await mark.committed();
  await syncEnv(env);
}

function syncEnv(env: RootDatabase): Promise<void> {
  // lmdb's typings leave out sync(), which forces what NOSYNC commits left to the disk.
  const syncing = env as unknown as { sync(done: (error?: Error) => void): void };
  return new Promise((resolve, reject) => syncing.sync((error) => (error ? reject(error) : resolve())));
}
