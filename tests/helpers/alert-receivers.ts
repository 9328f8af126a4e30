// Receivers of alerts for the tests: an HTTP endpoint (a webhook, or Slack's incoming webhook) on 127.0.0.1 that
// records what it got, what a receiver does with the signature, and an SMTP server that keeps each message.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

type Received = { headers: IncomingHttpHeaders; body: string };

/** An HTTP receiver on 127.0.0.1 answering each request with `answer(n)` (n from 1). */
export async function receiver(
  answer: (n: number, req: Received) => number | Promise<number>,
  text = "ok",
  errorText = (status: number) => `nope ${status}`,
) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const got = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(got);
      const status = await answer(received.length, got);
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? text : errorText(status));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** Delivery ids as a receiver that dedupes on x-tollgate-delivery sees them. */
    deliveryIds: () => received.map((r) => String(r.headers["x-tollgate-delivery"])),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What a receiver does with `x-tollgate-signature`: recompute over the raw body, compare in constant time. */
export function verifySignature(
  header: string,
  rawBody: string,
  secret: string,
  nowMs = Date.now(),
): boolean {
  const parts = Object.fromEntries(header.split(",").map((kv) => kv.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > 300) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex"));
  const given = Buffer.from(parts.v1 ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** An SMTP server on 127.0.0.1 that accepts every message and keeps its envelope and raw text. */
export async function smtpSink() {
  const messages: { to: string[]; from: string; raw: string }[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  const port = (smtp.server.address() as AddressInfo).port;
  return {
    messages,
    port,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
