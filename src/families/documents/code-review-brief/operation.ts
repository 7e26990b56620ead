import { z } from 'zod';
import { pricedOperation, type Command, type Route } from '../../../kernel/operation.ts';
import { utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { CODE_REVIEW_ID, type CodeReviewInput } from './engine.ts';
import { fromThreadedEngine } from '../../../kernel/engine-threads/threaded-command.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';

export const MAX_FILES = 50;
export const MAX_FILE_CHARACTERS = 200_000;
export const MAX_DIFF_CHARACTERS = 500_000;

const reviewPath = z
  .string()
  .min(1)
  .max(500)
  // Segments of which none is empty or only dots: no leading /, no . or .. segment (no lookahead, so every JSON Schema tool reads it).
  .regex(/^[^/\\\u0000]*[^/.\\\u0000][^/\\\u0000]*(?:\/[^/\\\u0000]*[^/.\\\u0000][^/\\\u0000]*)*$/, 'must be a relative path with / separators and no empty, . or .. segment, e.g. src/app.ts')
  .describe('The file name as in the repository: its extension decides the language (.js .mjs .cjs .jsx .ts .mts .cts .tsx are linted)');

const input = z
  .object({
    files: z
      .array(z.object({ path: reviewPath, content: z.string().max(MAX_FILE_CHARACTERS) }).strict())
      .min(1)
      .max(MAX_FILES)
      .optional()
      .describe(`Whole files, at most ${MAX_FILES} of at most ${MAX_FILE_CHARACTERS} characters each`),
    diff: z.string().min(1).max(MAX_DIFF_CHARACTERS).optional().describe('A unified diff (git diff or diff -u): only its added lines are reported'),
  })
  .strict();

const findingSchema = z.object({
  rule_id: z.string(),
  group: z.enum(['security', 'issue', 'suggestion']),
  severity: z.enum(['high', 'medium', 'low', 'info']),
  cwe: z.string().nullable(),
  file: z.string(),
  line: z.number().int(),
  column: z.number().int().nullable(),
  message: z.string(),
  tool: z.string(),
});

const briefFindings = {
  outcome: z.enum(['SECURITY-CONCERNS', 'ISSUES', 'SUGGESTIONS-ONLY', 'NO-FINDINGS']),
  statement: z.string(),
  scope: z.string(),
  files_reviewed: z.array(z.string()),
  summary: z.object({ security: z.number().int(), issues: z.number().int(), suggestions: z.number().int(), listed: z.number().int() }),
  findings: z.array(findingSchema),
  notes: z.array(z.string()),
  tools: z.array(z.object({ name: z.string(), version: z.string() })),
  rules: z.looseObject({}),
  evidence_source: z.literal('caller-supplied'),
};

/** On an engine thread: fifty large files take ESLint seconds, which the event loop is spared. */
const review: Command<CodeReviewInput> = fromThreadedEngine(moduleBeside(import.meta.url, 'engine'), 'reviewCode');

const codeReviewBrief = pricedOperation({
  id: CODE_REVIEW_ID,
  method: 'POST',
  path: '/v1/utils/code-review-brief',
  family: 'documents',
  priceUsd: '0.15',
  summary: 'Advisory brief of issues, security concerns, suggestions.',
  description:
    'Static analysis of whole files or of the added lines of a unified diff: for JavaScript and TypeScript, ESLint run in memory with eslint-plugin-security and the TypeScript parser; for every file, secret detection (secretlint, recommended rules; a secret is never repeated, only masked) and language-neutral checks (merge-conflict markers, TODO markers, very long lines). Each finding: rule id, CWE where one applies, severity, file, line, message; grouped as security concerns, issues and suggestions in a Markdown brief beside the signed receipt. It says plainly that it is static analysis, not a human review.',
  inputFrom: 'json',
  input,
  example: { files: [{ path: 'src/run.js', content: "const { exec } = require('child_process');\nexport function run(cmd) {\n  // TODO: validate cmd\n  return eval(cmd);\n}\n" }] },
  output: utilityReceiptResponse(CODE_REVIEW_ID, briefFindings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  precheck(i) {
    const given = (['files', 'diff'] as const).filter((k) => i[k] !== undefined);
    const paths = (i.files ?? []).map((f) => f.path);
    const twice = paths.findIndex((path, k) => paths.indexOf(path) !== k);
    // Findings name their file by path: two files of one path could not be told apart.
    if (twice >= 0) return { status: 422, error: 'duplicate_path', message: `path ${paths[twice]} is given twice`, outcome: 'INVALID-INPUT', issues: [{ path: `files.${twice}.path`, message: 'is given twice' }] };
    if (given.length === 1) return undefined;
    const message = given.length === 0 ? 'give files or diff' : 'give files or diff, not both';
    return { status: 422, error: 'one_source_required', message, outcome: 'INVALID-INPUT', issues: [{ path: given[1] ?? 'files', message }] };
  },
  command: review,
});

export const codeReviewBriefRoutes: Route[] = [codeReviewBrief];
