import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` holding `text`, whole or not at all, even on a full disk or a power cut:
 * temporary file, fsync, link into place, fsync of the directory. Linking (not renaming) never
 * replaces a file another process created first: false then, and the caller reads theirs.
 */
export function createFileAtomically(path: string, text: string, mode: number): boolean {
  return throughSyncedTemporary(path, text, mode, (temporary) => {
    try {
      linkSync(temporary, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  });
}

/** Replaces `path` with `text`, whole or not at all: temporary file, fsync, rename, fsync of the directory. */
export function replaceFileAtomically(path: string, text: string, mode: number): void {
  throughSyncedTemporary(path, text, mode, (temporary) => {
    renameSync(temporary, path);
    return true;
  });
}

/**
 * Writes `text` to a new temporary file beside `path` and syncs it, lets `place` put it at
 * `path`, and syncs the directory when it did; the temporary file never outlives the call.
 */
function throughSyncedTemporary(path: string, text: string, mode: number, place: (temporary: string) => boolean): boolean {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    withFile(openSync(temporary, 'wx', mode), (fd) => {
      writeSync(fd, text);
      fsyncSync(fd);
    });
    if (!place(temporary)) return false;
    withFile(openSync(dirname(path), 'r'), fsyncSync);
    return true;
  } finally {
    rmSync(temporary, { force: true });
  }
}

function withFile(fd: number, use: (fd: number) => void): void {
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}
