import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventLogger } from '../../src/events/file-log/logger.ts';

export const silentLogger: EventLogger = { info: () => {}, warn: () => {}, error: () => {} };

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps what it is told, for tests that check what was logged. */
export function recordingLogger(): EventLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (fields, message) => entries.push({ level: 'info', fields, message }),
    warn: (fields, message) => entries.push({ level: 'warn', fields, message }),
    error: (fields, message) => entries.push({ level: 'error', fields, message }),
  };
}

type Datasync = (this: unknown) => Promise<void>;

/**
 * Replaces fdatasync for every file handle (the file log's way to make a batch durable), to fail
 * or delay it; `replacement` gets the real one. A probe file in `scratchDir` reaches the
 * prototype. Returns the function that puts the real one back.
 */
export async function replaceDatasync(scratchDir: string, replacement: (original: Datasync) => Datasync): Promise<() => void> {
  const probe = await open(join(scratchDir, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync: Datasync };
  await probe.close();
  const original = prototype.datasync;
  prototype.datasync = replacement(original);
  return () => {
    prototype.datasync = original;
  };
}
