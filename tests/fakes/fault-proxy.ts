// A TCP proxy for outage tests: it sits between the processes under test and PostgreSQL or Redis and, on command,
// passes bytes through, refuses new connections, resets every connection, or black-holes them (accepts and
// holds connections, forwards nothing either way), so a test can take a dependency away without stopping the
// shared server.
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

/**
 * - `pass`: every byte goes through (the default).
 * - `refuse`: the port stops listening, so a new connection is refused (ECONNREFUSED, as a stopped server's port
 *   answers), and open connections are reset.
 * - `blackhole`: nothing moves either way and nothing is closed; new connections are accepted and held (packets
 *   dropped on the way, as a hung server or a broken network looks).
 */
export type FaultMode = "pass" | "refuse" | "blackhole";

type Pair = { client: Socket; upstream: Socket | null };

export type FaultProxy = {
  /** host:port the processes under test connect to. */
  readonly port: number;
  readonly url: (scheme: string, path?: string) => string;
  readonly mode: FaultMode;
  /** Switches mode; `refuse` and `blackhole` apply to the connections already open as well. */
  set(mode: FaultMode): Promise<void>;
  /** Resets every open connection (RST; a server restart as its clients see it); the mode stays. */
  resetAll(): void;
  /** Connections open right now, and accepted since start. */
  stats(): { open: number; accepted: number };
  close(): Promise<void>;
};

/** Starts a proxy on 127.0.0.1 (a free port unless given) to `target` (host:port). */
export async function startFaultProxy(target: { host: string; port: number }, port = 0): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let mode: FaultMode = "pass";
  let accepted = 0;

  const drop = (pair: Pair) => {
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
    pairs.delete(pair);
  };

  /** Held: neither side's bytes are read or written, so each side's kernel buffers fill and then stall. */
  const hold = (pair: Pair) => {
    pair.client.pause();
    pair.upstream?.pause();
    pair.client.unpipe();
    pair.upstream?.unpipe();
  };

  const wire = (pair: Pair) => {
    const upstream = pair.upstream!;
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
    pair.client.resume();
    upstream.resume();
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    accepted += 1;
    const pair: Pair = { client, upstream: null };
    pairs.add(pair);
    client.on("error", () => drop(pair));
    client.on("close", () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    // A black-holed connection is accepted and held: no upstream until the mode passes again (then it is wired).
    if (mode === "blackhole") return;
    openUpstream(pair);
  });

  const openUpstream = (pair: Pair) => {
    const upstream = tcpConnect({ host: target.host, port: target.port });
    pair.upstream = upstream;
    upstream.on("error", () => drop(pair));
    upstream.on("close", () => {
      pair.client.destroy();
      pairs.delete(pair);
    });
    upstream.once("connect", () => {
      if (mode === "pass") wire(pair);
      else hold(pair);
    });
  };

  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(port);
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the fault proxy did not get a TCP port");

  return {
    port: address.port,
    url: (scheme, path = "") => `${scheme}://127.0.0.1:${address.port}${path}`,
    get mode() {
      return mode;
    },
    async set(next) {
      const was = mode;
      mode = next;
      if (next === "refuse" && was !== "refuse") server.close();
      if (was === "refuse" && next !== "refuse") await listen(address.port);
      for (const pair of [...pairs]) {
        if (next === "refuse") drop(pair);
        else if (next === "blackhole") hold(pair);
        else if (!pair.upstream) openUpstream(pair);
        else if (pair.upstream.readyState === "open") wire(pair);
      }
    },
    resetAll() {
      for (const pair of [...pairs]) drop(pair);
    },
    stats: () => ({ open: pairs.size, accepted }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of [...pairs]) drop(pair);
        if (!server.listening) resolve();
        else server.close(() => resolve());
      }),
  };
}
