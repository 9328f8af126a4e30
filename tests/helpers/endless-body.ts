import http from "node:http";

/**
 * POSTs a chunked body (no Content-Length) that goes on until the server answers, or until `capBytes` (so a
 * server that buffers everything still ends the test, with `ended: true`). Resolves with the answer and whether
 * the whole capped body had been sent first: a server that refuses while streaming answers with `ended: false`.
 */
export function postEndless(
  url: string,
  headers: Record<string, string> = {},
  capBytes = 64 * 1024 * 1024,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders; ended: boolean }> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  chunk.write('{"pad":"');
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    let ended = false;
    const req = http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
    });
    req.on("response", (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(parts).toString(),
          headers: res.headers,
          ended,
        });
        req.destroy();
      });
    });
    // Once answered, the server may close while we are still writing: that is expected, not a failure.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = () => {
      while (!answered && sent < capBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", write);
      }
      if (!answered) {
        ended = true;
        req.end('"}');
      }
    };
    write();
  });
}
