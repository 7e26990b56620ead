import { request } from 'node:http';

/**
 * Asks GET /health of the server at `baseUrl` back to back until `until` settles, and returns the
 * longest a /health answer took: how long any other caller waited at worst while `until` ran.
 */
export async function longestHealthWait(baseUrl: string, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true));
  let longest = 0;
  const health = new URL('/health', baseUrl);
  while (!done) {
    const sent = performance.now();
    await drained(health);
    longest = Math.max(longest, performance.now() - sent);
  }
  return longest;
}

function drained(url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    request(url, (res) => res.resume().on('end', resolve).on('error', reject))
      .on('error', reject)
      .end();
  });
}
