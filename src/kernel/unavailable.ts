/**
 * A command could not finish for a reason of the service at this moment, not of its input (an
 * engine stopped at its time limit on a loaded machine). Unlike a DomainRefusal it is no verdict:
 * the paid call answers 503 `reason` with Retry-After, nothing is signed, and a retry with the
 * same payment may complete the call.
 */
export class UnavailableNowError extends Error {
  constructor(
    /** The answer's `error`, e.g. `engine_timeout`. */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnavailableNowError';
  }
}
