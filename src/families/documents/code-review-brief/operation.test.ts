import { describe, expect, it } from 'vitest';
import { postJson } from '../../../../test/support/http.ts';
import { useTestService } from '../../../../test/support/service.ts';

const service = useTestService();
const PATH = '/v1/utils/code-review-brief';

describe('code review brief over HTTP', () => {
  it('quotes with 402; refuses neither or both of files and diff, a path that climbs out, or too many files with 422 before the quote', async () => {
    expect((await postJson(`${service.url}${PATH}`, { files: [{ path: 'a.js', content: 'eval(x)' }] })).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, {})).toMatchObject({ status: 422, body: { error: 'one_source_required' } });
    expect(await postJson(`${service.url}${PATH}`, { files: [{ path: 'a.js', content: '' }], diff: '+x' })).toMatchObject({ status: 422, body: { error: 'one_source_required' } });
    expect(await postJson(`${service.url}${PATH}`, { files: [{ path: 'a.ts', content: 'x' }, { path: 'a.ts', content: 'y' }] })).toMatchObject({ status: 422, body: { error: 'duplicate_path', issues: [{ path: 'files.1.path' }] } });
    expect(await postJson(`${service.url}${PATH}`, { files: [{ path: '../etc/passwd', content: '' }] })).toMatchObject({ status: 422, body: { issues: [{ path: 'files.0.path' }] } });
    const many = Array.from({ length: 51 }, (_, i) => ({ path: `f${i}.js`, content: '' }));
    expect(await postJson(`${service.url}${PATH}`, { files: many })).toMatchObject({ status: 422, body: { issues: [{ path: 'files' }] } });
  });
});
