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
