/** One file of a unified diff, seen from its new side. */
export interface DiffFile {
  path: string;
  /** Added lines by their line number in the new file. */
  added: Map<number, string>;
  /**
   * The new file as far as the hunks show it: lines outside every hunk are empty, except the line
   * before a hunk, which holds the hunk header's section heading (git's enclosing function line),
   * so that a hunk inside a function still parses as one.
   */
  partialContent: string;
  deleted: boolean;
}

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

const pathOf = (header: string): string => {
  const raw = header.replace(/\t.*$/, '').trim();
  return raw === '/dev/null' ? raw : raw.replace(/^[ab]\//, '');
};

/**
 * Reads a unified diff (git or diff -u): every file's added lines with their new-file line
 * numbers, and the new side of its hunks. Lines of the old side only are dropped.
 */
export function parseUnifiedDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  const lines = diff.replace(/\r\n?/g, '\n').split('\n');
  let current: { path: string; added: Map<number, string>; newSide: Map<number, string>; deleted: boolean } | undefined;
  let next = 0;
  let remaining = 0;
  const flush = () => {
    if (!current) return;
    let last = 0;
    for (const line of current.newSide.keys()) last = Math.max(last, line);
    const content = Array.from({ length: last }, (_, i) => current!.newSide.get(i + 1) ?? '').join('\n');
    files.push({ path: current.path, added: current.added, partialContent: content, deleted: current.deleted });
    current = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (remaining === 0 && line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      flush();
      const newPath = pathOf(lines[i + 1]!.slice(4));
      current = { path: newPath === '/dev/null' ? pathOf(line.slice(4)) : newPath, added: new Map(), newSide: new Map(), deleted: newPath === '/dev/null' };
      i++;
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk && current) {
      next = Number(hunk[1]);
      const heading = hunk[3]?.trim();
      if (heading && next > 1 && !current.newSide.has(next - 1)) current.newSide.set(next - 1, heading);
      remaining = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    if (!current || remaining === 0) continue;
    if (line.startsWith('+')) {
      current.added.set(next, line.slice(1));
      current.newSide.set(next++, line.slice(1));
      remaining--;
    } else if (line.startsWith(' ') || line === '') {
      current.newSide.set(next++, line.slice(1));
      remaining--;
    }
    // '-' lines and '\ No newline at end of file' do not advance the new side.
  }
  flush();
  return files;
}
