import { lstat, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** Every request's upload directory is named so (multipart.ts). */
export const UPLOAD_DIR_PREFIX = 'attest-upload-';

/**
 * A request removes its uploads when its answer is sent, but a process that is killed (SIGKILL,
 * the OOM killer, a power cut) cannot: its callers' documents would stay in the temp directory.
 * This removes the upload directories nothing has written to for `olderThanMs`, longer than
 * any request can run, so that those of live requests, this process's or another's sharing the
 * temp directory, are left alone. Only directories of this user are looked at, never through
 * a link. Returns how many were removed.
 */
export async function removeStaleUploads(olderThanMs: number, now = Date.now(), dir = tmpdir()): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(UPLOAD_DIR_PREFIX)) continue;
    const path = join(dir, entry.name);
    const lastWrite = await lastWriteIn(path);
    if (lastWrite === undefined || now - lastWrite <= olderThanMs) continue;
    await rm(path, { recursive: true, force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/** The latest modification time of the directory and its files, or undefined when it is not ours to remove. */
async function lastWriteIn(path: string): Promise<number | undefined> {
  try {
    const self = await lstat(path);
    if (!self.isDirectory() || (process.getuid && self.uid !== process.getuid())) return undefined;
    let latest = self.mtimeMs;
    for (const name of await readdir(path)) latest = Math.max(latest, (await lstat(join(path, name))).mtimeMs);
    return latest;
  } catch {
    return undefined; // gone meanwhile, or unreadable
  }
}

/**
 * How long an upload directory may go unwritten before it is taken for a killed process's: an
 * hour, or twice the request timeout when that is longer (a request's body arrives within it;
 * what follows, the engine's work, takes seconds).
 */
export const staleUploadAgeMs = (requestTimeoutMs: number): number => Math.max(3_600_000, 2 * requestTimeoutMs);

/** Removes stale uploads now (at start: a killed predecessor's) and then every `olderThanMs` (another process's on the same machine); returns the stop. */
export function keepRemovingStaleUploads(olderThanMs: number, log: Pick<Logger, 'info' | 'warn'>): () => void {
  const sweep = () =>
    removeStaleUploads(olderThanMs).then(
      (removed) => {
        if (removed > 0) log.info({ removed }, 'removed upload directories a killed process left behind');
      },
      (err: Error) => log.warn({ error: err.message }, 'stale uploads could not be removed'),
    );
  void sweep();
  const timer = setInterval(() => void sweep(), olderThanMs).unref();
  return () => clearInterval(timer);
}
