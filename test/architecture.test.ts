import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

/** The import graph of src/, as madge reads it (paths relative to src/). */
let graph: Record<string, string[]>;
let circles: string[][];

beforeAll(async () => {
  const result = await madge(new URL('../src/', import.meta.url).pathname, { fileExtensions: ['ts'], tsConfig: new URL('../tsconfig.json', import.meta.url).pathname });
  graph = result.obj();
  circles = result.circular();
}, 60_000);

const importsOf = (prefix: string) =>
  Object.entries(graph)
    .filter(([file]) => file.startsWith(prefix) && !file.endsWith('.test.ts'))
    .flatMap(([file, deps]) => deps.map((dep) => ({ file, dep })));

describe('the layout', () => {
  it('has no import circle', () => {
    expect(circles).toEqual([]);
  });

  it('imports point one way: nothing under payments/, kernel/ or families/ imports http/', () => {
    const offending = ['payments/', 'kernel/', 'families/'].flatMap((p) => importsOf(p)).filter(({ dep }) => dep.startsWith('http/'));
    expect(offending).toEqual([]);
  });

  it('kernel/ imports only itself, signing/, events/ and the settings', () => {
    const offending = importsOf('kernel/').filter(({ dep }) => !/^(kernel|signing|events)\//.test(dep) && dep !== 'config.ts');
    expect(offending).toEqual([]);
  });

  it('payments/ imports only itself, kernel/, signing/, events/ and the settings', () => {
    const offending = importsOf('payments/').filter(({ dep }) => !/^(payments|kernel|signing|events)\//.test(dep) && dep !== 'config.ts');
    expect(offending).toEqual([]);
  });

  it('catalog/ reaches operations only through the families\' indexes', () => {
    const offending = importsOf('catalog/').filter(({ dep }) => dep.startsWith('families/') && !/^families\/[^/]+\/index\.ts$/.test(dep));
    expect(offending).toEqual([]);
  });

  it('a family imports no other family', () => {
    const offending = importsOf('families/').filter(({ file, dep }) => dep.startsWith('families/') && dep.split('/')[1] !== file.split('/')[1]);
    expect(offending).toEqual([]);
  });

  it('families/ do not reach the service above them (catalog, http, audit, service)', () => {
    const offending = importsOf('families/').filter(({ dep }) => /^(catalog|http|audit)\//.test(dep) || dep === 'service.ts' || dep === 'main.ts');
    expect(offending).toEqual([]);
  });
});
