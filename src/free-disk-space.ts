import { statfsSync } from 'node:fs';

/** Bytes the service's user may still write on the disk holding `path`; undefined when it cannot be read. */
export function freeDiskBytes(path: string): number | undefined {
  try {
    const disk = statfsSync(path);
    return disk.bavail * disk.bsize;
  } catch {
    return undefined;
  }
}
