import { pino, type DestinationStream, type Logger } from 'pino';
import type { Settings } from './config.ts';

/**
 * The service's logger: JSON lines on stdout, each written as it is logged (pino's synchronous
 * default: the line that explains a crash is not left in a buffer). A destination can be given
 * for tests.
 */
export function createLogger(settings: Pick<Settings, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options = {
    level: settings.LOG_LEVEL,
    // Defence in depth: payment headers and secrets are never logged, even if someone adds them.
    redact: ['*.ATTESTATION_SECRET', '*.RELAYER_PRIVATE_KEY', '*.headers["payment-signature"]', '*.headers["x-payment"]'],
  };
  return destination ? pino(options, destination) : pino(options);
}
