import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../../../signing/hash.ts';
import { convertDocument } from '../doc-convert/engine.ts';
import { renderPdf } from '../doc-convert/pdf-render.ts';

/** The repository's documentation: the same path from src/ and from the compiled dist/. */
export const DOCS_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The chapters, in reading order: what the service is, the contract, every operation with its
 * rules, how results are verified, then the rest of the documentation. Nothing else is added.
 */
function chapterFiles(root: string): string[] {
  const docs = join(root, 'docs');
  const under = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? under(join(dir, name)) : name.endsWith('.md') ? [join(dir, name)] : []));
  const first = [join(root, 'README.md'), join(docs, 'spec', 'service-interface.md'), ...under(join(docs, 'operations')), join(docs, 'verifying.md'), join(docs, 'records-and-outcomes.md'), join(docs, 'payments.md')];
  const rest = under(docs).filter((f) => !first.includes(f));
  return [...first, ...rest];
}

export interface HandbookSource {
  markdown: string;
  sha256: string;
  chapters: string[];
}

/** The handbook's text: every chapter's Markdown under a heading naming its file. */
export function handbookSource(root = DOCS_ROOT): HandbookSource {
  const files = chapterFiles(root);
  const parts = ['# The attestation service handbook', '', 'Every operation with its rules, the published standards the service implements, and how to verify a result, taken from the documentation shipped with the service.', ''];
  for (const file of files) parts.push(`# ${relative(root, file)}`, '', readFileSync(file, 'utf8'), '');
  const markdown = parts.join('\n');
  return { markdown, sha256: sha256Hex(markdown), chapters: files.map((f) => relative(root, f)) };
}

/**
 * The handbook as a PDF: the same documentation gives the same bytes. Run on an engine thread
 * (ebook-file.ts): on the event loop the first card of a new data directory held it about 4 s.
 */
export async function renderHandbookPdf(markdown: string): Promise<Uint8Array> {
  const { blocks, title } = convertDocument({ text: markdown, from: 'markdown', to: 'pdf' });
  return renderPdf(blocks, title);
}
