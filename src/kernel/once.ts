/**
 * The value `make` returns, made at the first call and kept: for a library or data set loaded on
 * first use rather than at every start of the service. A rejected promise is kept too: a broken
 * install answers every call with the same error instead of retrying the import each time.
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
