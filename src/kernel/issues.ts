/** One thing wrong with an input: where (a dotted path, `(root)` for the whole) and why. */
export interface Issue {
  path: string;
  message: string;
}

type ZodLikeIssue = { path: ReadonlyArray<PropertyKey>; message: string };

/** A schema issue with its path dotted as a caller reads it. */
export function issueOf(issue: ZodLikeIssue): Issue {
  return { path: issue.path.map(String).join('.') || '(root)', message: issue.message };
}

/** zod issues -> our issue list, with dotted paths a caller can read. */
export function issuesOf(error: { issues: ReadonlyArray<ZodLikeIssue> }): Issue[] {
  return error.issues.map(issueOf);
}

/** An issue in one line, as messages quote it: `path: message`. */
export function describeIssue(issue: Issue): string {
  return `${issue.path}: ${issue.message}`;
}
