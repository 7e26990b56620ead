import type { AuditReport } from './audit.ts';

/** The audit summary as an auditor reads it: counts, failures by kind, then the first failures. */
export function formatReport(report: AuditReport, context: { source: string; seconds: number; threads?: number; keys?: string; ed25519?: string; detailLimit?: number }): string {
  const limit = context.detailLimit ?? 20;
  const lines = [
    `audit of ${context.source}`,
    `  events replayed:     ${report.events}`,
    `  streams:             ${report.streams}`,
    `  signed results:      ${report.results}`,
    `  hash chains checked: ${report.chains}`,
    `  log checkpoints:     ${report.checkpoints} (tree rebuilt, roots, signatures, consistency)`,
    `  time:                ${context.seconds.toFixed(2)} s (${Math.round(report.events / Math.max(context.seconds, 0.001))} events/s, ${Math.round(report.results / Math.max(context.seconds, 0.001))} results/s)`,
  ];
  const { notSettled, notSigned, notSignedStreams } = report.unfinishedPayments;
  if (notSettled + notSigned > 0) {
    lines.push(`  unfinished payments: ${notSigned} settled with no signed result (charged; a retry with the same payment completes the call or answers its refusal), ${notSettled} claimed and not settled (nothing charged yet)`);
    for (const stream of notSignedStreams.slice(0, limit)) lines.push(`    settled, no result: ${stream}`);
  }
  if (report.indexChecked !== undefined) lines.push(`  event index:         ${report.indexChecked} entries checked against the segments`);
  if (report.resultStoreChecked !== undefined) lines.push(`  result log store:    ${report.resultStoreChecked} leaves and their nodes checked against the results${digestRunsLine(report.resultStoreDigestRuns)}`);
  if (context.keys) lines.push(`  keys:                ${context.keys}`);
  if (context.threads) lines.push(`  verifying threads:   ${context.threads}`);
  if (context.ed25519) lines.push(`  Ed25519 verified by: ${context.ed25519}`);
  if (report.ok) {
    lines.push('result: PASS, no failures');
    return lines.join('\n');
  }
  lines.push(`result: FAIL, ${report.failureCount} failure(s)`);
  for (const [kind, count] of Object.entries(report.failuresByKind).sort(([a], [b]) => a.localeCompare(b))) lines.push(`  ${kind}: ${count}`);
  lines.push(`first ${Math.min(limit, report.failures.length)} failure(s):`);
  for (const f of report.failures.slice(0, limit)) {
    const where = [f.stream, f.revision === undefined ? undefined : `revision ${f.revision}`, f.position === undefined ? undefined : `position ${f.position}`, f.eventId && `event ${f.eventId}`]
      .filter(Boolean)
      .join(', ');
    lines.push(`  [${f.kind}] ${where}: ${f.message}`);
  }
  return lines.join('\n');
}

const digestRunsLine = (runs: AuditReport['resultStoreDigestRuns']): string =>
  runs && runs.runs > 0 ? `, and its digest lookup's ${runs.runs} runs (${runs.entries} entries)` : '';
