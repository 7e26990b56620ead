import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';
import { z } from 'zod';
import { DataDirectoryLockedError } from './errors.ts';
import type { EventLogger } from './logger.ts';

const lockSchema = z.object({ pid: z.number().int(), host: z.string(), token: z.string() });

export interface DirectoryLock {
  release(): Promise<void>;
}

/**
 * One writer per data directory. Node has no flock, so the lock is a file created exclusively
 * holding our pid; a lock left by a process that no longer runs on this host (killed, crashed) is
 * taken over, and one held by a live process, or by another host, is refused.
 */
export async function acquireLock(path: string, log: EventLogger): Promise<DirectoryLock> {
  const mine = { pid: process.pid, host: hostname(), token: randomUUID() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o644);
      try {
        await handle.writeFile(JSON.stringify(mine));
        await handle.sync();
      } finally {
        await handle.close();
      }
      return { release: () => releaseLock(path, mine.token) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = await readHolder(path);
    if (holder === 'unreadable') {
      // Perhaps another process is between creating the file and writing it: look again.
      await new Promise((r) => setTimeout(r, 200));
      holder = await readHolder(path);
    }
    if (holder === 'gone') continue;
    if (holder !== 'unreadable' && (holder.host !== mine.host || isAlive(holder.pid)))
      throw new DataDirectoryLockedError(path, holder.pid);
    // A half-written lock file can only come from a process that died while creating it.
    log.warn({ lockFile: path, previousHolder: holder === 'unreadable' ? null : holder.pid }, 'event log: taking over a lock left by a process that is no longer running');
    await unlink(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
  throw new Error(`could not acquire the event log lock ${path}: it keeps changing hands`);
}

async function readHolder(path: string): Promise<z.infer<typeof lockSchema> | 'gone' | 'unreadable'> {
  try {
    const parsed = lockSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : 'unreadable';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return 'unreadable';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseLock(path: string, token: string): Promise<void> {
  const holder = await readHolder(path);
  if (typeof holder === 'object' && holder.token === token) await unlink(path);
}
