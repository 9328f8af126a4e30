import "server-only";
// The hung-connection deadline for postgres-js, which has no client-side query timeout: a statement_timeout is
// enforced by the server, so it cannot help when the server (or the network to it) never answers at all. Each
// connection's socket is watched; one that has sent something and heard nothing for `silenceMs` may be a long
// statement (an index rebuild, a lock wait) or a dead peer, so the server is asked on a fresh TCP connection for
// the one-byte answer to an SSLRequest (no authentication, no backend work). No answer within `probeMs`: the
// server is away, and every connection to it is destroyed with a classified error (the queries on them fail at
// once, and the pool opens new connections for the next ones).
import { type Socket, connect as tcpConnect } from "node:net";

/** The code a query fails with when its connection was dropped by the deadline (lib/core/errors/dependency.ts). */
export const SILENT_SERVER_CODE = "DATABASE_SILENT";

/** What postgres-js passes its `socket` option (the parsed connection options). */
type PgSocketOptions = { host: string[]; port: number[]; path?: string | false; ssl?: unknown };
type Target = { host: string; port: number } | { path: string };

// SSLRequest: length 8, code 80877103. Any PostgreSQL server answers it with one byte ('S' or 'N').
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

export type SilentServerWatch = {
  /** The postgres-js `socket` option: a TCP connection, watched for silence. */
  socket(options: PgSocketOptions): Socket;
  /** Connections dropped because the server did not answer (tests, logs). */
  dropped(): number;
};

export function silentServerWatch({ silenceMs, probeMs }: { silenceMs: number; probeMs: number }) {
  const open = new Set<Socket>();
  let probing: Promise<boolean> | null = null;
  let dropped = 0;
  let next = 0;

  /** Whether the server answers an SSLRequest on a new connection within `probeMs`. One probe at a time. */
  const serverAnswers = (target: Target): Promise<boolean> => {
    probing ??= new Promise<boolean>((resolve) => {
      const probe = "path" in target ? tcpConnect(target.path) : tcpConnect(target);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        probe.destroy();
        probing = null;
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), probeMs);
      timer.unref();
      probe.once("connect", () => probe.write(SSL_REQUEST));
      probe.once("data", () => done(true));
      probe.once("error", () => done(false));
      probe.once("close", () => done(false));
    });
    return probing;
  };

  const dropAll = () => {
    const message = `the database did not answer within ${silenceMs + probeMs} ms; its connections were dropped`;
    for (const s of [...open]) {
      dropped += 1;
      // One error each: postgres-js marks an error with the first query it fails.
      s.destroy(Object.assign(new Error(message), { code: SILENT_SERVER_CODE }));
    }
  };

  const watch = (socket: Socket, target: Target) => {
    open.add(socket);
    // Something was written that no byte has answered yet: postgres-js answers every message it sends but the
    // last (Terminate), so a connection that is silent past the deadline while waiting is suspect.
    let waiting = false;
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      waiting = true;
      return write(...args);
    }) as Socket["write"];
    socket.on("data", () => {
      waiting = false;
    });
    socket.setTimeout(silenceMs);
    socket.on("timeout", () => {
      if (!waiting || socket.destroyed) return;
      void serverAnswers(target).then((ok) => {
        if (ok) socket.setTimeout(silenceMs);
        else dropAll();
      });
    });
    socket.once("close", () => open.delete(socket));
  };

  return {
    socket(options: PgSocketOptions): Socket {
      let target: Target;
      if (options.path) target = { path: options.path };
      else {
        const i = next++ % options.host.length;
        target = { host: options.host[i] ?? "localhost", port: options.port[i] ?? options.port[0] ?? 5432 };
      }
      const socket = "path" in target ? tcpConnect(target.path) : tcpConnect(target);
      // postgres-js names the TLS server by this (its own sockets carry it too).
      if ("host" in target) Object.assign(socket, { host: target.host, port: target.port });
      // Under TLS the bytes move on the socket's handle, out of sight of this watch (and postgres-js drops its
      // listeners when it starts TLS): such a connection relies on TCP keepalive and the server's timeouts.
      if (!options.ssl) watch(socket, target);
      return socket;
    },
    dropped: () => dropped,
  } satisfies SilentServerWatch;
}
