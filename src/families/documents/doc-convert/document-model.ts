import type { Nodes, Root, RootContent, TableCell } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown, gfmTableToMarkdown } from 'mdast-util-gfm-table';
import { toMarkdown } from 'mdast-util-to-markdown';
import { toString as plainText } from 'mdast-util-to-string';
import { gfmTable } from 'micromark-extension-gfm-table';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';

/**
 * The document as blocks, read with a CommonMark parser (micromark, through mdast) plus the GFM
 * table extension: the one model every target format (JSON, Markdown, PDF, DOCX) is written from.
 * Inline formatting is flattened to its text; links are kept beside the text.
 */
export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string; links?: Link[] }
  | { type: 'list'; ordered: boolean; start: number | null; items: Block[][] }
  | { type: 'code'; lang: string | null; text: string }
  | { type: 'table'; align: Array<'left' | 'right' | 'center' | null>; header: string[]; rows: string[][] }
  | { type: 'blockquote'; blocks: Block[] }
  | { type: 'thematic_break' }
  | { type: 'html'; text: string };

export interface Link {
  text: string;
  url: string;
}

export type SourceFormat = 'text' | 'markdown';

export function parseMarkdownTree(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] });
}

export function writeMarkdown(tree: Root): string {
  return toMarkdown(tree, { extensions: [gfmTableToMarkdown()] });
}

/**
 * Plain text read as paragraphs separated by blank lines; nothing in it is markup. Built as an
 * mdast tree of literal text so that writing it as Markdown escapes whatever would be markup.
 */
export function plainTextTree(text: string): Root {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '');
  return { type: 'root', children: paragraphs.map((p) => ({ type: 'paragraph', children: [{ type: 'text', value: p }] })) };
}

export function documentTree(text: string, from: SourceFormat): Root {
  return from === 'markdown' ? parseMarkdownTree(text) : plainTextTree(text);
}

function linksIn(node: Nodes): Link[] {
  if (node.type === 'link') return [{ text: plainText(node), url: node.url }];
  return 'children' in node ? node.children.flatMap((child) => linksIn(child)) : [];
}

function cellText(cell: TableCell): string {
  return plainText(cell);
}

function toBlock(node: RootContent): Block[] {
  switch (node.type) {
    case 'heading':
      return [{ type: 'heading', level: node.depth, text: plainText(node) }];
    case 'paragraph': {
      const links = linksIn(node);
      return [{ type: 'paragraph', text: plainText(node), ...(links.length > 0 ? { links } : {}) }];
    }
    case 'list':
      return [{ type: 'list', ordered: node.ordered === true, start: node.ordered ? (node.start ?? 1) : null, items: node.children.map((item) => item.children.flatMap(toBlock)) }];
    case 'code':
      return [{ type: 'code', lang: node.lang ?? null, text: node.value }];
    case 'table': {
      const [head, ...body] = node.children;
      return [{ type: 'table', align: (node.align ?? []).map((a) => a ?? null), header: head ? head.children.map(cellText) : [], rows: body.map((row) => row.children.map(cellText)) }];
    }
    case 'blockquote':
      return [{ type: 'blockquote', blocks: node.children.flatMap(toBlock) }];
    case 'thematicBreak':
      return [{ type: 'thematic_break' }];
    case 'html':
      return [{ type: 'html', text: node.value }];
    default:
      // Definitions (link reference targets) carry no content of their own.
      return [];
  }
}

export function blocksOf(tree: Root): Block[] {
  return tree.children.flatMap(toBlock);
}

/** The tree without source positions: what a round trip through Markdown must preserve. */
export function withoutPositions(node: Nodes): JsonValue {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'position' || value === undefined) continue;
    if (key === 'children') out[key] = (value as Nodes[]).map(withoutPositions);
    else out[key] = value as JsonValue;
  }
  return out;
}

/** Counts of each block type, nested blocks included. */
export function blockCounts(blocks: Block[]): Record<string, number> {
  const counts: Record<string, number> = {};
  const visit = (list: Block[]) => {
    for (const block of list) {
      counts[block.type] = (counts[block.type] ?? 0) + 1;
      if (block.type === 'list') block.items.forEach(visit);
      if (block.type === 'blockquote') visit(block.blocks);
    }
  };
  visit(blocks);
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The document's title: its first heading, else nothing (never guessed from a paragraph). */
export function titleOf(blocks: Block[]): string | null {
  const heading = blocks.find((b) => b.type === 'heading');
  return heading && heading.type === 'heading' ? heading.text : null;
}
