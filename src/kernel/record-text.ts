/**
 * A record as JSON text (CommandResult.recordText): made where the record is made (an engine
 * thread), so that the event log and the HTTP answer copy it instead of serialising the record
 * on the event loop. Its own file so that the engine threads and the operation contract can both
 * name it without importing each other.
 */
export interface RecordText {
  /** JSON.stringify(record) as UTF-8. */
  json: Uint8Array;
  /** Object.keys(record): what a body that spreads the record needs to know of it. */
  keys: readonly string[];
}
