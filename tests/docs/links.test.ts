import path from "node:path";
import { describe, expect, it } from "vitest";
import { exists, filesUnder, headingAnchors, isDirectory, linksOf, readText } from "./markdown";

const isMarkdown = (name: string) => name.endsWith(".md");
const DOCS = [
  "README.md",
  "CHANGELOG.md",
  ...filesUnder("docs", isMarkdown),
  "schemas/README.md",
  ...filesUnder("tests", (name) => name === "README.md"),
].filter(exists);

const anchorCache = new Map<string, Set<string>>();
const anchorsOf = (file: string) => {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = headingAnchors(readText(file));
  anchorCache.set(file, anchors);
  return anchors;
};

/** What is wrong with one link of `file`, or null when it resolves. Links with a scheme leave the repository. */
function problemWith(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return null;
  const hash = target.indexOf("#");
  const rawPath = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved = rawPath
    ? path.normalize(path.join(path.dirname(file), decodeURIComponent(rawPath.split("?")[0]!)))
    : file;
  if (resolved.startsWith("..")) return `${resolved} is outside the repository`;
  if (!exists(resolved)) return `no file ${resolved}`;
  if (anchor === null || anchor === "") return null;
  if (isDirectory(resolved) || !resolved.endsWith(".md")) return null;
  return anchorsOf(resolved).has(anchor) ? null : `no heading in ${resolved} whose anchor is #${anchor}`;
}

describe("documentation links", () => {
  it("covers the README, the changelog, docs/, schemas/README.md and the tests' READMEs", () => {
    expect(DOCS).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", "docs/README.md"]));
  });

  it.each(DOCS)("every relative link and anchor in %s resolves", (file) => {
    const broken = linksOf(readText(file))
      .map(({ target, line }) => ({ line, target, problem: problemWith(file, target) }))
      .filter((link) => link.problem !== null)
      .map(({ line, target, problem }) => `${file}:${line}: (${target}): ${problem}`);
    expect(broken, broken.join("\n")).toEqual([]);
  });
});

describe("GitHub's heading anchors", () => {
  it("lower-case, drop punctuation but - and _, spaces to hyphens, number duplicates", () => {
    const anchors = headingAnchors(
      [
        "# Operating Tollgate",
        "## Ledger row (`sys_agent_turn`)",
        "## Prometheus metrics: `GET /metrics`",
        "## Node.js versions",
        "### Tests",
        "### Tests",
        "```",
        "# not a heading",
        "```",
        "## **Bold** and [a link](x.md)",
      ].join("\n"),
    );
    expect([...anchors]).toEqual([
      "operating-tollgate",
      "ledger-row-sys_agent_turn",
      "prometheus-metrics-get-metrics",
      "nodejs-versions",
      "tests",
      "tests-1",
      "bold-and-a-link",
    ]);
  });

  it("reads inline links, images, reference definitions and HTML, but not code", () => {
    const links = linksOf(
      [
        'See [a](a.md#x) and ![b](img/b.png "title") and `[c](c.md)`.',
        "[ref]: ../ref.md",
        '<img src="shot.png" alt="">',
        "```md",
        "[d](d.md)",
        "```",
      ].join("\n"),
    ).map((l) => l.target);
    expect(links).toEqual(["a.md#x", "img/b.png", "../ref.md", "shot.png"]);
  });
});
