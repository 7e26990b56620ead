import type PDFKitDocument from 'pdfkit';
import type { Block } from './document-model.ts';
import { FONTS } from './fonts.ts';

/**
 * The fixed date written as the PDF's creation and modification date. PDFKit derives the file
 * identifier from the info dictionary, so with this date the same blocks always give the same
 * bytes; the date of the call is in the signed record instead.
 */
export const FIXED_DOCUMENT_DATE = new Date(Date.UTC(2000, 0, 1, 0, 0, 0));

const BODY_SIZE = 11;
const HEADING_SIZES = [0, 20, 16, 14, 12.5, 11.5, 11];
const CODE_SIZE = 9.5;

type Doc = InstanceType<typeof PDFKitDocument>;

/**
 * PDFKit breaks a word longer than its line by measuring ever shorter slices of it and keeps the
 * width of every slice: a 10,000-character word took 2 s and 128 MB, and one of 100,000 ran the
 * process out of memory. A run of more than this many characters without white space is set in
 * lines of this many code points instead, as PDFKit would break it, without the search.
 */
const LONGEST_UNBROKEN = 48;
const LONG_RUN = new RegExp(`\\S{${LONGEST_UNBROKEN + 1},}`, 'gu');

function withLongRunsBroken(text: string): string {
  return text.replace(LONG_RUN, (run) => {
    const points = Array.from(run);
    const lines: string[] = [];
    for (let at = 0; at < points.length; at += LONGEST_UNBROKEN) lines.push(points.slice(at, at + LONGEST_UNBROKEN).join(''));
    return lines.join('\n');
  });
}

function collect(doc: Doc): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

function drawBlocks(doc: Doc, blocks: Block[], indent: number): void {
  for (const block of blocks) drawBlock(doc, block, indent);
}

function drawBlock(doc: Doc, block: Block, indent: number): void {
  const x = doc.page.margins.left + indent;
  const width = doc.page.width - doc.page.margins.right - x;
  switch (block.type) {
    case 'heading':
      doc.font('bold').fontSize(HEADING_SIZES[block.level] ?? BODY_SIZE).text(withLongRunsBroken(block.text), x, undefined, { width });
      doc.moveDown(0.4);
      return;
    case 'paragraph':
    case 'html':
      doc.font('body').fontSize(BODY_SIZE).text(withLongRunsBroken(block.text), x, undefined, { width });
      doc.moveDown(0.6);
      return;
    case 'code':
      doc.font('mono').fontSize(CODE_SIZE).text(withLongRunsBroken(block.text), x + 10, undefined, { width: width - 10 });
      doc.moveDown(0.6);
      return;
    case 'list':
      block.items.forEach((item, i) => {
        const marker = block.ordered ? `${(block.start ?? 1) + i}.` : '•';
        doc.font('body').fontSize(BODY_SIZE).text(marker, x, undefined, { width: 18, continued: false, lineBreak: false });
        doc.moveUp();
        drawBlocks(doc, item, indent + 18);
      });
      return;
    case 'table': {
      const rows = [block.header, ...block.rows];
      rows.forEach((row, i) => {
        doc.font(i === 0 ? 'bold' : 'body').fontSize(BODY_SIZE - 1).text(withLongRunsBroken(row.join('  |  ')), x, undefined, { width });
      });
      doc.moveDown(0.6);
      return;
    }
    case 'blockquote':
      drawBlocks(doc, block.blocks, indent + 16);
      return;
    case 'thematic_break': {
      const y = doc.y + 4;
      doc.moveTo(x, y).lineTo(x + width, y).stroke();
      doc.moveDown(0.8);
      return;
    }
  }
}

/** The blocks as a PDF set in DejaVu Sans; byte-identical for the same blocks and title. */
export async function renderPdf(blocks: Block[], title: string | null): Promise<Buffer> {
  // pdfkit and its font engine cost about 0.2 s to load: on the first PDF, not at every start.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: { Title: title ?? 'Converted document', Producer: 'attestation-service doc-convert', Creator: 'attestation-service doc-convert', CreationDate: FIXED_DOCUMENT_DATE, ModDate: FIXED_DOCUMENT_DATE },
  });
  const done = collect(doc);
  doc.registerFont('body', FONTS.body.bytes);
  doc.registerFont('bold', FONTS.bold.bytes);
  doc.registerFont('mono', FONTS.mono.bytes);
  drawBlocks(doc, blocks, 0);
  doc.end();
  return done;
}
