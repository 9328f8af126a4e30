import { Worker } from "node:worker_threads";
import { GET as live } from "@/app/api/health/live/route";
import { serveRoutes } from "../helpers/web-server";

// The prober runs on its own thread: a blocked main event loop cannot delay its clock or its requests.
const PROBER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies = [];
let stopped = false;
let inFlight = false;
const finish = () => parentPort.postMessage(latencies);
function answered(probe) {
  latencies.push(probe);
  inFlight = false;
  if (stopped) finish();
  else setTimeout(next, 10);
}
function next() {
  const start = performance.now();
  inFlight = true;
  const req = http.get(workerData.url, { agent }, (res) => {
    res.resume();
    res.on("end", () => answered({ ms: performance.now() - start, status: res.statusCode }));
  });
  req.on("error", (error) => answered({ ms: performance.now() - start, status: 0, error: String(error) }));
}
parentPort.on("message", (message) => {
  // Probes answered before the work began measured the set-up, not the work.
  if (message === "mark") return void latencies.splice(0);
  if (message !== "stop") return;
  stopped = true;
  // A probe still in flight is waited for: its latency is the one that counts most.
  if (!inFlight) finish();
});
next();
parentPort.postMessage("started");
`;

export type Probe = { ms: number; status: number; error?: string };

// The app's own liveness handler, answered on this (the test's) event loop.
const healthRoutes = { GET: async () => live() };

/**
 * Serves the app's real liveness route (/api/health/live) on this thread's event loop, polls it every 10 ms from
 * another thread while `work` runs here, and returns every probe's latency.
 */
export async function probeWhile(work: () => Promise<void>): Promise<Probe[]> {
  const server = await serveRoutes(healthRoutes);
  const worker = new Worker(PROBER, { eval: true, workerData: { url: `${server.url}/api/health/live` } });
  try {
    await new Promise<void>((resolve) => worker.once("message", () => resolve()));
    // A few answers before the work starts, so a probe is always in flight when it begins.
    await new Promise((resolve) => setTimeout(resolve, 50));
    worker.postMessage("mark");
    await new Promise((resolve) => setTimeout(resolve, 15));
    await work();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const done = new Promise<Probe[]>((resolve) => worker.once("message", resolve));
    worker.postMessage("stop");
    return await done;
  } finally {
    await worker.terminate();
    await server.close();
  }
}

/** Lets the event loop answer what is waiting (as production does between two requests). */
export const yieldToLoop = () => new Promise((resolve) => setTimeout(resolve, 0));
