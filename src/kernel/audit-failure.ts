/** One thing the audit found wrong, located as precisely as the log allows. */
export interface AuditFailure {
  /**
   * What kind of failure, for the summary: `result-schema`, `result-sha256`, `result-signature`,
   * `result-key-id`, `result-key-family`, `saga-order`, `log-order`, `log-unreadable`, `event-index`
   * (the file log's index on disk disagrees with its segments), `result-store` (the result log's
   * store disagrees with the results), or
   * `chain:<rule name>` for the chain rules of audit-rule.ts.
   */
  kind: string;
  stream: string;
  message: string;
  position?: bigint;
  revision?: bigint;
  eventId?: string;
}
