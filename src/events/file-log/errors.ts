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
