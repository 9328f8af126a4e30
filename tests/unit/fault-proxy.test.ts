import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultProxy, startFaultProxy } from "../fakes/fault-proxy";

// An echo server stands in for PostgreSQL or Redis: what reaches it comes back.
let echo: Server;
let echoPort = 0;
let proxy: FaultProxy;

beforeAll(async () => {
  echo = createServer((s) => {
    s.on("error", () => {});
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  echoPort = (echo.address() as { port: number }).port;
  proxy = await startFaultProxy({ host: "127.0.0.1", port: echoPort });
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => echo.close(() => r()));
});

/** A client socket with what it has received and how it ended. */
function client() {
  const socket: Socket = connect({ host: "127.0.0.1", port: proxy.port });
  const seen = { data: "", error: null as string | null, closed: false };
  socket.on("data", (d) => {
    seen.data += d.toString();
  });
  socket.on("error", (e: NodeJS.ErrnoException) => {
    seen.error = e.code ?? e.message;
  });
  socket.on("close", () => {
    seen.closed = true;
  });
  return { socket, seen };
}
const until = async (ok: () => boolean, ms = 2_000) => {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return ok();
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("fault proxy", () => {
  it("passes bytes both ways", async () => {
    const c = client();
    c.socket.write("hello");
    expect(await until(() => c.seen.data === "hello")).toBe(true);
    c.socket.destroy();
  });

  it("black-holes open and new connections without closing them, and lets the held bytes through after", async () => {
    const open = client();
    open.socket.write("a");
    expect(await until(() => open.seen.data === "a")).toBe(true);
    await proxy.set("blackhole");
    open.socket.write("b");
    const fresh = client();
    fresh.socket.write("c");
    await pause(300);
    expect(open.seen).toMatchObject({ data: "a", error: null, closed: false });
    expect(fresh.seen).toMatchObject({ data: "", error: null, closed: false });
    await proxy.set("pass");
    expect(await until(() => open.seen.data === "ab" && fresh.seen.data === "c")).toBe(true);
    open.socket.destroy();
    fresh.socket.destroy();
  });

  it("refuses new connections and resets open ones, then listens again on the same port", async () => {
    const open = client();
    open.socket.write("x");
    expect(await until(() => open.seen.data === "x")).toBe(true);
    const port = proxy.port;
    await proxy.set("refuse");
    expect(await until(() => open.seen.closed)).toBe(true);
    expect(open.seen.error).toBe("ECONNRESET");
    const refused = client();
    expect(await until(() => refused.seen.error !== null)).toBe(true);
    expect(refused.seen.error).toBe("ECONNREFUSED");
    await proxy.set("pass");
    expect(proxy.port).toBe(port);
    const back = client();
    back.socket.write("y");
    expect(await until(() => back.seen.data === "y")).toBe(true);
    back.socket.destroy();
  });

  it("resets every open connection on command and keeps serving new ones", async () => {
    const open = client();
    open.socket.write("1");
    expect(await until(() => open.seen.data === "1")).toBe(true);
    proxy.resetAll();
    expect(await until(() => open.seen.closed)).toBe(true);
    expect(open.seen.error).toBe("ECONNRESET");
    const next = client();
    next.socket.write("2");
    expect(await until(() => next.seen.data === "2")).toBe(true);
    next.socket.destroy();
  });
});
