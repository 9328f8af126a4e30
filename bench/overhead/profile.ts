// Where a server's CPU went, from a V8 .cpuprofile (node --cpu-prof; BENCH_CPU_PROF=<dir> makes the benchmark's
// lean and Next servers write one): self time per function and per area (node internals, lib/…, a package,
// GC/idle), as markdown tables.
//   npx tsx bench/overhead/profile.ts <file.cpuprofile> [n]      (the top n functions, default 15)
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type CpuProfile = {
  nodes: { id: number; callFrame: CallFrame }[];
  /** µs on the monotonic clock (V8's, which on Linux is CLOCK_MONOTONIC, as process.hrtime is). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
/** Self time of one function (or area): samples in it, and their time (ms). */
type Self = { samples: number; ms: number };
export type ProfileSummary = {
  totalSamples: number;
  idleSamples: number;
  totalMs: number;
  functions: { name: string; where: string; self: Self }[];
  areas: { area: string; self: Self }[];
};

/** V8's own entries: not functions, but what the process was doing outside JavaScript. */
const V8_ENTRIES: Record<string, string> = {
  "(garbage collector)": "GC",
  "(idle)": "idle",
  "(program)": "(program): V8 and native code, unattributed",
  "(root)": "(root)",
};

/** Sums a profile's samples; only those taken inside `windows` ([start, end] in ns of process.hrtime) if given. */
export function summarise(
  profile: CpuProfile,
  windows?: [bigint, bigint][],
  root = process.cwd(),
): ProfileSummary {
  const inWindow = (us: number) =>
    !windows || windows.some(([a, b]) => us * 1000 >= Number(a) && us * 1000 <= Number(b));
  const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, { name: string; where: string; self: Self }>();
  const byArea = new Map<string, Self>();
  const add = (self: Self, ms: number) => {
    self.samples++;
    self.ms += ms;
  };
  let totalMs = 0;
  let idleSamples = 0;
  let totalSamples = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (!inWindow(at)) return;
    totalSamples++;
    // A sample stands for the time until the next one (the last one: none).
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    totalMs += ms;
    const frame = frameOf.get(id)!;
    const name = frame.functionName || (frame.url ? "(anonymous)" : "(native)");
    const { where, area } = placeOf(name, frame.url, root);
    if (name === "(idle)") idleSamples++;
    const line = frame.url ? `:${frame.lineNumber + 1}` : "";
    const key = `${name} ${where}${line}`;
    if (!byFunction.has(key)) byFunction.set(key, { name, where: where + line, self: { samples: 0, ms: 0 } });
    add(byFunction.get(key)!.self, ms);
    if (!byArea.has(area)) byArea.set(area, { samples: 0, ms: 0 });
    add(byArea.get(area)!, ms);
  });
  const bySamples = (a: { self: Self }, b: { self: Self }) => b.self.samples - a.self.samples;
  return {
    totalSamples,
    idleSamples,
    totalMs,
    functions: [...byFunction.values()].sort(bySamples),
    areas: [...byArea].map(([area, self]) => ({ area, self })).sort(bySamples),
  };
}

/**
 * Where a function is, as a reader finds it (the repository-relative path, `node:…`, or `<package>/<file in it>`),
 * and its area: node internals, a folder of ours (`lib/<folder>`, `server`, …), a package, or V8's own entries.
 */
function placeOf(name: string, url: string, root: string): { where: string; area: string } {
  if (!url) return { where: "", area: V8_ENTRIES[name] ?? "V8 builtins (no script)" };
  if (url.startsWith("node:")) return { where: url, area: "node internals" };
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  const inPackage = file.lastIndexOf("/node_modules/");
  if (inPackage >= 0) {
    const where = file.slice(inPackage + "/node_modules/".length);
    const parts = where.split("/");
    const pkg = parts[0]!.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
    return { where, area: `node_modules/${pkg}` };
  }
  // Another checkout's profile: its path from the first folder a repository of ours has.
  const inRepo = path.relative(root, file);
  const where = !inRepo.startsWith("..")
    ? inRepo
    : file.match(/\/((?:lib|server|app|db|features|bench|scripts)\/.*)$/)?.[1];
  if (!path.isAbsolute(file) || !where) return { where: file, area: "other scripts" };
  const parts = where.split("/");
  return { where, area: parts[0] === "lib" && parts.length > 2 ? `lib/${parts[1]}/` : `${parts[0]}` };
}

/** The summary as markdown: the top `n` functions by self time, then the areas. */
export function profileTables(summary: ProfileSummary, n = 15): string {
  const busy = summary.totalSamples - summary.idleSamples;
  const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)}%` : "n/a");
  const cells = (self: Self, idle: boolean) =>
    `${self.ms.toFixed(0)} | ${pct(self.samples, summary.totalSamples)} | ${idle ? "" : pct(self.samples, busy)}`;
  const functions = summary.functions
    .slice(0, n)
    .map(
      (f) => `| \`${f.name}\` | ${f.where ? `\`${f.where}\`` : ""} | ${cells(f.self, f.name === "(idle)")} |`,
    );
  // Areas under half a percent of the samples are summed in one line.
  const small = (a: { self: Self }) => a.self.samples < summary.totalSamples / 200;
  const rest = summary.areas.filter(small);
  const restSelf = rest.reduce((s, a) => ({ samples: s.samples + a.self.samples, ms: s.ms + a.self.ms }), {
    samples: 0,
    ms: 0,
  });
  const areas = summary.areas
    .filter((a) => !small(a))
    .map((a) => `| ${a.area} | ${cells(a.self, a.area === "idle")} |`)
    .concat(rest.length ? [`| ${rest.length} more, each under 0.5% | ${cells(restSelf, false)} |`] : []);
  return [
    `${summary.totalSamples.toLocaleString("en-US")} samples over ${(summary.totalMs / 1000).toFixed(1)} s, ${pct(busy, summary.totalSamples)} of them busy (not idle).`,
    "",
    "| function (self time) | where | ms | % of samples | % of busy samples |",
    "| --- | --- | --- | --- | --- |",
    ...functions,
    "",
    "| area | ms | % of samples | % of busy samples |",
    "| --- | --- | --- | --- |",
    ...areas,
  ].join("\n");
}

/**
 * The section's part for the profile process `pid` wrote into `dir` (node names it CPU.<date>.<time>.<pid>.…):
 * its samples inside `windows` (the slices under load), or a line saying there is none.
 */
export function profileSection(dir: string, pid: number, title: string, windows: [bigint, bigint][]): string {
  const file = readdirSync(dir)
    .filter((name) => name.includes(`.${pid}.`) && name.endsWith(".cpuprofile"))
    .map((name) => path.join(dir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!file) return `### ${title}\n\nNo CPU profile of process ${pid} in ${dir}.`;
  const seconds = windows.reduce((s, [a, b]) => s + Number(b - a) / 1e9, 0);
  return `### ${title}

From \`${path.basename(file)}\`, the samples taken during the lean server's slices under load (${windows.length}, ${seconds.toFixed(1)} s);
\`npx tsx bench/overhead/profile.ts <file> [n]\` sums the whole profile. **The figures of a profiled run are skewed by the
profiler** (its sampling costs the server CPU): compare them with each other, not with the table above. Self time per function
(line numbers are those of the code tsx compiled), then per area.

${profileTables(summarise(readProfile(file), windows))}`;
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [file, n = "15"] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: npx tsx bench/overhead/profile.ts <file.cpuprofile> [n]\n");
    process.exit(2);
  }
  process.stdout.write(`${profileTables(summarise(readProfile(file)), Number(n))}\n`);
}
