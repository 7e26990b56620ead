import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { Block } from './document-model.ts';

/**
 * The fixed date written into the archive entries and the document's core properties: the docx
 * package stamps both with the time of packing, so they are replaced and the archive is written
 * again in the same entry order. The same blocks then always give the same bytes.
 */
const FIXED_ISO_DATE = '2000-01-01T00:00:00Z';
const FIXED_ARCHIVE_DATE = new Date(Date.UTC(2000, 0, 1, 0, 0, 0));

const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6];
const BODY_FONT = 'DejaVu Sans';
const MONO_FONT = 'DejaVu Sans Mono';

type DocxChild = Paragraph | Table;

function textLines(text: string, font: string, bold = false): TextRun[] {
  return text.split('\n').map((line, i) => new TextRun({ text: line, font, bold, break: i === 0 ? 0 : 1 }));
}

function toChildren(blocks: Block[], depth: number): DocxChild[] {
  return blocks.flatMap((block) => toChild(block, depth));
}

function toChild(block: Block, depth: number): DocxChild[] {
  const indent = depth > 0 ? { indent: { left: 360 * depth } } : {};
  switch (block.type) {
    case 'heading':
      return [new Paragraph({ heading: HEADINGS[block.level], children: textLines(block.text, BODY_FONT, true) })];
    case 'paragraph':
    case 'html':
      return [new Paragraph({ ...indent, children: textLines(block.text, BODY_FONT) })];
    case 'code':
      return [new Paragraph({ ...indent, children: textLines(block.text, MONO_FONT) })];
    case 'list':
      return block.items.flatMap((item, i) => {
        const marker = block.ordered ? `${(block.start ?? 1) + i}. ` : '• ';
        const [first, ...rest] = item;
        const lead = first && (first.type === 'paragraph' || first.type === 'heading') ? first.text : '';
        const head = new Paragraph({ indent: { left: 360 * (depth + 1), hanging: 360 }, children: textLines(`${marker}${lead}`, BODY_FONT) });
        return [head, ...toChildren(lead === '' && first ? [first, ...rest] : rest, depth + 1)];
      });
    case 'table': {
      const row = (cells: string[], bold: boolean) => new TableRow({ children: cells.map((cell) => new TableCell({ children: [new Paragraph({ children: textLines(cell, BODY_FONT, bold) })] })) });
      return [new Table({ width: { size: 100, type: WidthType.PERCENTAGE }, rows: [row(block.header, true), ...block.rows.map((r) => row(r, false))] }), new Paragraph({})];
    }
    case 'blockquote':
      return toChildren(block.blocks, depth + 1);
    case 'thematic_break':
      return [new Paragraph({ thematicBreak: true })];
  }
}

function fixDates(entries: Record<string, Uint8Array>): Zippable {
  const fixed: Zippable = {};
  for (const [name, data] of Object.entries(entries)) {
    const content = name === 'docProps/core.xml' ? strToU8(strFromU8(data).replace(/(<dcterms:(?:created|modified)[^>]*>)[^<]*(<\/dcterms:)/g, `$1${FIXED_ISO_DATE}$2`)) : data;
    fixed[name] = [content, { mtime: FIXED_ARCHIVE_DATE, level: 6 }];
  }
  return fixed;
}

/** The blocks as a DOCX (WordprocessingML) in DejaVu fonts; byte-identical for the same blocks. */
export async function renderDocx(blocks: Block[], title: string | null): Promise<Buffer> {
  const document = new Document({
    creator: 'attestation-service doc-convert',
    lastModifiedBy: 'attestation-service doc-convert',
    title: title ?? 'Converted document',
    sections: [{ children: toChildren(blocks, 0) }],
  });
  const packed = await Packer.toBuffer(document);
  return Buffer.from(zipSync(fixDates(unzipSync(packed))));
}
