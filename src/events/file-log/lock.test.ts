import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirectoryLockedError } from './errors.ts';
import { acquireLock, processIdentity } from './lock.ts';
import type { EventLogger } from './logger.ts';

const silent: EventLogger = { info: () => {}, warn: () => {}, error: () => {} };
const HEARTBEAT_MS = 100;

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'attest-lock-'));
  path = join(dir, 'LOCK');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const holder = (over: Record<string, unknown>) => ({ pid: process.pid, host: 'this-host', token: 'dead-holder', ...processIdentity(process.pid), beat: 0, ...over });

describe('the data-directory lock', () => {
  it('a live holder in this process namespace always blocks; after release the directory is free', async () => {
    const first = await acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS });
    await expect(acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS })).rejects.toBeInstanceOf(DataDirectoryLockedError);
    await first.release();
    expect(existsSync(path)).toBe(false);
    await (await acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS })).release();
  });

  it('a container restarted in a fresh PID namespace gets the old PID back: a dead holder with our PID does not block', async () => {
    // Same kernel, same PID namespace, same PID as ours, but another process start time: PID reuse.
    writeFileSync(path, JSON.stringify(holder({ startTime: '1' })));
    const started = Date.now();
    const lock = await acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS });
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS);
    await lock.release();
  });

  it('a lock left by another host (rescheduled container), whose heartbeat stopped, is taken over', async () => {
    writeFileSync(path, JSON.stringify(holder({ host: 'old-node', bootId: 'another-kernel', pid: 12, beat: 41 })));
    const lock = await acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('a live holder in another container on a shared volume blocks, by its heartbeat', async () => {
    let beat = 0;
    const other = holder({ host: 'other-container', pidNamespace: 'pid:[999]', pid: 7, token: 'alive' });
    writeFileSync(path, JSON.stringify(other));
    const timer = setInterval(() => writeFileSync(path, JSON.stringify({ ...other, beat: ++beat })), HEARTBEAT_MS / 2);
    try {
      await expect(acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS })).rejects.toBeInstanceOf(DataDirectoryLockedError);
    } finally {
      clearInterval(timer);
    }
  });

  it('the holder keeps its heartbeat going while it holds the lock', async () => {
    const lock = await acquireLock(path, silent, { heartbeatMs: HEARTBEAT_MS });
    const before = JSON.parse(readFileSync(path, 'utf8')).beat as number;
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 3));
    expect(JSON.parse(readFileSync(path, 'utf8')).beat).toBeGreaterThan(before);
    await lock.release();
  });
});
