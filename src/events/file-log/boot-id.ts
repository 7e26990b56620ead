import { readFileSync } from 'node:fs';

/** The kernel's id of this boot of the machine (Linux); undefined where there is none to read. */
export function currentBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
