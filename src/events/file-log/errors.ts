/** The log holds a damaged record that is not a torn tail: refusing beats silently dropping data. */
export class CorruptLogError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`event log is corrupt in ${file} at byte offset ${offset}: ${reason}. ` +
      'Nothing was truncated; restore the file from a backup or investigate before starting again.');
    this.name = 'CorruptLogError';
  }
}

/**
 * One record would be larger than a frame may be (MAX_RECORD_BYTES). Not a RangeError: the JSON
 * writer falls back to JSON.stringify on a RangeError (a stack overflow on deep data), which
 * would serialise the oversized value once more before failing again.
 */
export class RecordTooLargeError extends Error {
  constructor(
    readonly eventId: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`event ${eventId} is ${bytes} bytes; the limit is ${limit}`);
    this.name = 'RecordTooLargeError';
  }
}

/** Another live process already writes this data directory. */
export class DataDirectoryLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly holderPid: number,
  ) {
    super(`the event log is in use by process ${holderPid} (lock file ${lockFile}). ` +
      'Only one process may write a data directory: stop the other process, or delete the lock file if no such process is running.');
    this.name = 'DataDirectoryLockedError';
  }
}
