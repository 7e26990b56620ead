/**
 * What the event store logs through: the shape of pino's `(fields, message)` call, so the
 * service's logger can be passed as is.
 */
export interface EventLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** One JSON line per entry on stderr, for when no logger is passed (the audit CLI, scripts). */
export const stderrLogger: EventLogger = {
  info: (fields, message) => write('info', fields, message),
  warn: (fields, message) => write('warn', fields, message),
  error: (fields, message) => write('error', fields, message),
};

function write(level: string, fields: Record<string, unknown>, message: string): void {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), ...fields, msg: message })}\n`);
}
