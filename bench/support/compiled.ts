import { spawnSync } from 'node:child_process';

const root = new URL('../../', import.meta.url);

/** What `npm start` runs (scripts/start.mjs): the bundle of dist/ (scripts/bundle.mjs). */
export const SERVICE_ENTRY = 'dist/bundle/main.js';

/** Builds src/ into dist/ when src/ changed, as `npm start` and `npm run audit` do before they run. */
export function buildCompiled(): void {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root.pathname, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`the build failed (exit ${build.status})`);
}

/** A module of dist/ (`path` as under src/, with .js), typed as its source; bench/run.ts builds dist/ before any bench. */
export function importCompiled<T>(path: string): Promise<T> {
  return import(new URL(`dist/${path}`, root).href) as Promise<T>;
}

type AuditModule = typeof import('../../src/audit/audit.ts');
type PoolModule = typeof import('../../src/audit/signature-pool.ts');
type StoreModule = typeof import('../../src/events/open-store.ts');
type LeafStoreModule = typeof import('../../src/transparency/leaf-store.ts');

/**
 * The audit as `npm run audit` runs it: the replay, the store it reads and the verifying threads
 * from dist/ (which bench/run.ts built). Under tsx each verifying thread compiles its TypeScript
 * at start, and the same audit ran 4-8 % slower.
 */
export async function compiledAudit(): Promise<{
  auditEventLog: AuditModule['auditEventLog'];
  startSignaturePool: PoolModule['startSignaturePool'];
  openEventStoreForReading: StoreModule['openEventStoreForReading'];
  LeafStore: LeafStoreModule['LeafStore'];
}> {
  const [audit, pool, store, leafStore] = await Promise.all([
    importCompiled<AuditModule>('audit/audit.js'),
    importCompiled<PoolModule>('audit/signature-pool.js'),
    importCompiled<StoreModule>('events/open-store.js'),
    importCompiled<LeafStoreModule>('transparency/leaf-store.js'),
  ]);
  return { auditEventLog: audit.auditEventLog, startSignaturePool: pool.startSignaturePool, openEventStoreForReading: store.openEventStoreForReading, LeafStore: leafStore.LeafStore };
}
