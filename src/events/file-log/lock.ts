import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { z } from 'zod';
import { currentBootId } from './boot-id.ts';
import { DataDirectoryLockedError } from './errors.ts';
import type { EventLogger } from './logger.ts';

/**
 * The holder of a data directory. A process id alone cannot say whether the holder still runs:
 * a container restarted in a fresh PID namespace gets the dead holder's PID back, and on another
 * host the PID means nothing. So the lock names its holder by what a restart cannot share (a
 * random token, the kernel's boot id, the PID namespace and the process start time) and the
 * holder keeps a heartbeat in it while it runs.
 */
const lockSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  token: z.string(),
  bootId: z.string(),
  pidNamespace: z.string(),
  startTime: z.string(),
  beat: z.number().int(),
});
type LockHolder = z.infer<typeof lockSchema>;

export interface DirectoryLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** How often the holder rewrites its heartbeat. */
  heartbeatMs?: number;
}

const DEFAULT_HEARTBEAT_MS = 1_000;

/**
 * One writer per data directory. A holder is alive when, seen from the same kernel and PID
 * namespace, its PID runs with the same start time; seen from anywhere else (another host,
 * another container on a shared volume), when its heartbeat moves within a few beats. A dead
 * holder never blocks (its lock is taken over), and a live one always does.
 */
export async function acquireLock(path: string, log: EventLogger, options: LockOptions = {}): Promise<DirectoryLock> {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const mine: LockHolder = { pid: process.pid, host: hostname(), token: randomUUID(), ...processIdentity(process.pid), beat: 0 };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusively(path, mine)) return holdLock(path, mine, heartbeatMs);
    const holder = await readHolder(path);
    if (holder === 'gone') continue;
    if (await holderIsAlive(path, holder, heartbeatMs)) throw new DataDirectoryLockedError(path, holder === 'unreadable' ? -1 : holder.pid);
    log.warn({ lockFile: path, previousHolder: holder === 'unreadable' ? null : { pid: holder.pid, host: holder.host } }, 'event log: taking over a lock left by a process that is no longer running');
    await unlink(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
  throw new Error(`could not acquire the event log lock ${path}: it keeps changing hands`);
}

async function createExclusively(path: string, holder: LockHolder): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await handle.writeFile(JSON.stringify(holder));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

function holdLock(path: string, mine: LockHolder, heartbeatMs: number): DirectoryLock {
  let beat = 0;
  let writing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    // Written beside and renamed over, so a reader never sees half a lock.
    writing = writing.then(async () => {
      const next = `${path}.${mine.token}.beat`;
      await writeFile(next, JSON.stringify(Object.assign({}, mine, { beat: ++beat })));
      await rename(next, path);
    }).catch(() => undefined);
  }, heartbeatMs);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      await writing;
      const holder = await readHolder(path);
      if (typeof holder === 'object' && holder.token === mine.token) await unlink(path);
    },
  };
}

async function holderIsAlive(path: string, holder: LockHolder | 'unreadable', heartbeatMs: number): Promise<boolean> {
  if (holder !== 'unreadable') {
    const here = processIdentity(holder.pid);
    // Same kernel and PID namespace: the PID and its start time say it all, without waiting.
    if (holder.bootId === here.bootId && holder.pidNamespace === here.pidNamespace && holder.bootId !== 'unknown') return here.startTime !== 'gone' && here.startTime === holder.startTime;
  }
  // Another host, another container, or a lock caught half-written: watch for a heartbeat.
  const seen = holder === 'unreadable' ? undefined : holder.beat;
  await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 3));
  const now = await readHolder(path);
  if (now === 'gone') return false;
  if (now === 'unreadable') return false;
  if (holder !== 'unreadable' && now.token !== holder.token) return true;
  return now.beat !== seen;
}

async function readHolder(path: string): Promise<LockHolder | 'gone' | 'unreadable'> {
  try {
    const parsed = lockSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : 'unreadable';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return 'unreadable';
  }
}

/** What identifies a running process beyond its PID, as this process sees it (Linux /proc). */
export function processIdentity(pid: number): Pick<LockHolder, 'bootId' | 'pidNamespace' | 'startTime'> {
  return { bootId: currentBootId() ?? 'unknown', pidNamespace: linkOr('/proc/self/ns/pid'), startTime: startTimeOf(pid) };
}

function startTimeOf(pid: number): string {
  const stat = readOr(`/proc/${pid}/stat`, '');
  if (!stat) return 'gone';
  // Field 22 (starttime, in clock ticks since boot) follows the command name, which may hold spaces.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? 'gone';
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

function linkOr(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return 'unknown';
  }
}
