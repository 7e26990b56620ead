import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` holding `text`, whole or not at all, even on a full disk or a power cut:
 * temporary file, fsync, link into place, fsync of the directory. Linking (not renaming) never
 * replaces a file another process created first: false then, and the caller reads theirs.
 */
export function createFileAtomically(path: string, text: string, mode: number): boolean {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return true;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Replaces `path` with `text`, whole or not at all: temporary file, fsync, rename, fsync of the directory. */
export function replaceFileAtomically(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } finally {
    rmSync(temporary, { force: true });
  }
}
