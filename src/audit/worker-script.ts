/**
 * The entry of a worker thread whose script sits beside `moduleUrl` (the caller's
 * import.meta.url) under `name`: the compiled file from dist/, or, where the caller runs as
 * TypeScript under tsx (development, tests), a stub that registers tsx in the worker first,
 * since a worker does not inherit its parent's loader.
 */
export function workerScript(moduleUrl: string, name: string): URL {
  if (moduleUrl.endsWith('.js')) return new URL(`./${name}.js`, moduleUrl);
  const script = new URL(`./${name}.ts`, moduleUrl).href;
  const source = `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register(); await import(${JSON.stringify(script)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}
