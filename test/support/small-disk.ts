import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small tmpfs a test mounts to fill: a real full disk, ENOSPC and all. */
export interface SmallDisk {
  path: string;
  /** False where mounting is not allowed (not root, no tmpfs): the test is skipped, and has said why. */
  mounted: boolean;
  /** Fills what is left of the disk with a file; returns it, to delete to give the room back. */
  fill(name?: string): string;
  /** Unmounts the disk and removes its mount point: for afterAll, once nothing holds a file on it. */
  remove(): void;
}

/** Mounts a tmpfs of `size` (as `mount -o size=` takes it) for the test called `test`. */
export function mountSmallDisk(test: string, size: string, parent = tmpdir()): SmallDisk {
  const path = mkdtempSync(join(parent, `attest-${test}-`));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { encoding: 'utf8' });
  const mounted = mount.status === 0;
  if (!mounted) console.warn(`${test} test skipped: cannot mount a small tmpfs here (${(mount.stderr || mount.error?.message || 'mount failed').trim()})`);
  return {
    path,
    mounted,
    fill(name = 'filler') {
      const filler = join(path, name);
      try {
        writeFileSync(filler, Buffer.alloc(8 * 1024 * 1024));
      } catch {
        // ENOSPC: the file took what there was.
      }
      return filler;
    },
    remove() {
      if (mounted) spawnSync('umount', [path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
