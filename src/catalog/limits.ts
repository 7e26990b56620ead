/** Body limits of DESIGN section 3: above them the request is answered 413. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
export const MAX_MULTIPART_BYTES = 10 * 1024 * 1024;
