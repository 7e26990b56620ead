import { finding, type Finding } from './findings.ts';
import { LONG_LINE, NEUTRAL_RULES } from './rules.ts';

const CONFLICT = /^(<{7} |={7}$|>{7} )/;
const TODO = /\b(TODO|FIXME|XXX|HACK)\b/;

/** Checks that hold in any language: merge-conflict markers, work-in-progress markers, very long lines. */
export function neutralChecks(path: string, content: string): Finding[] {
  const found: Finding[] = [];
  content.split(/\r?\n/).forEach((text, i) => {
    const at = { file: path, line: i + 1, column: 1 };
    if (CONFLICT.test(text)) found.push(finding('neutral/merge-conflict-marker', NEUTRAL_RULES['neutral/merge-conflict-marker']!, at, 'merge-conflict marker left in the file', 'neutral'));
    const todo = TODO.exec(text);
    if (todo) found.push(finding('neutral/todo-marker', NEUTRAL_RULES['neutral/todo-marker']!, { ...at, column: todo.index + 1 }, `${todo[1]} marker: unfinished work`, 'neutral'));
    const length = [...text].length;
    if (length > LONG_LINE) found.push(finding('neutral/long-line', NEUTRAL_RULES['neutral/long-line']!, at, `line of ${length} characters (more than ${LONG_LINE})`, 'neutral'));
  });
  return found;
}
