/** Body limits (docs/architecture.md, a paid call): above them the request is answered 413. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
export const MAX_MULTIPART_BYTES = 10 * 1024 * 1024;
/** Request line and headers together: verify routes take records as query parameters. */
export const MAX_HEADER_BYTES = 64 * 1024;
