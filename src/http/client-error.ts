import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_HEADER_BYTES } from '../kernel/limits.ts';

/**
 * What Node's HTTP parser refuses before any middleware sees the request: an over-long request
 * line or headers, a malformed request, a request too slow to arrive. Node's own answer is a
 * bare status line with no body; here it is the service's error body, with a request id, so a
 * client learns what to change (a record too large for a URL goes to a POST recheck instead).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex & { _httpMessage?: { headersSent?: boolean } | null }): void {
  // As Node does: nothing more is written to a socket gone, or in the middle of an answer.
  if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, error, message } = problemOf(err.code);
  const requestId = randomUUID();
  const body = JSON.stringify({ error, message, requestId });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function problemOf(code: string | undefined): { status: number; error: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error: 'headers_too_large',
        message: `the request line and headers take more than ${MAX_HEADER_BYTES} bytes; send a large record in a JSON body: every verify and re-check route also takes POST with its parameters as JSON members (docs/verifying.md)`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, error: 'request_timeout', message: 'the request did not arrive in time' };
    default:
      return { status: 400, error: 'bad_request', message: `the request is not well-formed HTTP/1.1 (${code ?? 'unknown parser error'})` };
  }
}
