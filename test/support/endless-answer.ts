import type { ServerResponse } from 'node:http';

/** Answers 200 and writes 64 KiB chunks for as long as the client reads: a server that never stops talking. */
export function answerWithoutEnd(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const pour = () => {
    while (res.write(chunk));
  };
  res.on('drain', pour);
  res.on('error', () => {});
  pour();
}
