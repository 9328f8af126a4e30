// A TCP proxy in front of a counter store (PostgreSQL or Redis) that can stop forwarding for a while: the store
// looks hung to every server behind it (connections stay open, nothing moves, new ones are accepted and wait),
// which is what a stalled primary or a network partition looks like from the servers' side.
//   node --import tsx bench/multi/pausable-proxy.ts <host> <port> <pauseMs>
// Prints its own port on its first line. SIGUSR2 pauses it for <pauseMs>; it logs `paused <epoch ms>` and
// `resumed <epoch ms>`, so the benchmark knows the window exactly. Runs until killed.
import { connect, createServer, type Socket } from "node:net";

const [host, portText, pauseText] = process.argv.slice(2);
const targetPort = Number(portText);
const pauseMs = Number(pauseText);
if (!host || !Number.isInteger(targetPort) || !Number.isInteger(pauseMs))
  throw new Error("usage: pausable-proxy.ts <host> <port> <pauseMs>");

/** Every open socket, both sides: paused together, resumed together. */
const sockets = new Set<Socket>();
/** Connections accepted while paused, waiting to be forwarded. */
let waiting: Socket[] = [];
/** Bytes read while paused (at most one chunk per socket, read before it stopped), written on resume. */
const held = new Map<Socket, Buffer[]>();
let paused = false;

const track = (socket: Socket) => {
  sockets.add(socket);
  socket.once("close", () => sockets.delete(socket));
  if (paused) socket.pause();
};

/** Copies `from` to `to` by hand (pipe() would resume a paused source on the destination's drain). */
function relay(from: Socket, to: Socket): void {
  from.on("data", (chunk: Buffer) => {
    if (paused) {
      from.pause();
      held.set(to, [...(held.get(to) ?? []), chunk]);
      return;
    }
    if (!to.write(chunk)) {
      from.pause();
      to.once("drain", () => {
        if (!paused) from.resume();
      });
    }
  });
  from.on("end", () => to.end());
}

function forward(client: Socket): void {
  const server = connect({ host, port: targetPort });
  track(server);
  relay(client, server);
  relay(server, client);
  // One side going away closes the other (a server's pool notices at once, as without the proxy).
  client.on("error", () => server.destroy());
  server.on("error", () => client.destroy());
  client.on("close", () => server.destroy());
  server.on("close", () => client.destroy());
}

const proxy = createServer({ noDelay: true }, (client) => {
  track(client);
  if (paused) waiting.push(client);
  else forward(client);
});
proxy.listen(0, "127.0.0.1", () => {
  const address = proxy.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});

process.on("SIGUSR2", () => {
  if (paused) return;
  paused = true;
  for (const s of sockets) s.pause();
  process.stdout.write(`paused ${Date.now()}\n`);
  setTimeout(() => {
    paused = false;
    for (const [to, chunks] of held) if (!to.destroyed) for (const chunk of chunks) to.write(chunk);
    held.clear();
    for (const s of sockets) s.resume();
    const queued = waiting;
    waiting = [];
    for (const client of queued) if (!client.destroyed) forward(client);
    process.stdout.write(`resumed ${Date.now()}\n`);
  }, pauseMs);
});
