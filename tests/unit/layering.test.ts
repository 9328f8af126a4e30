import { describe, expect, it } from "vitest";
import { checkLayers, type Module, readTree } from "@/scripts/check-layers";

/** A synthetic module map: each file with its in-tree imports, and which directive it starts with. */
function tree(files: Record<string, { imports?: string[]; serverOnly?: boolean; useClient?: boolean }>) {
  return new Map<string, Module>(
    Object.entries(files).map(([file, m]) => [
      file,
      {
        file,
        imports: (m.imports ?? []).map((target) => ({ target, typeOnly: false })),
        external: [],
        serverOnly: m.serverOnly ?? false,
        useClient: m.useClient ?? false,
      },
    ]),
  );
}

describe("import layering", () => {
  it("every arrow in the tree points one way", () => {
    const violations = checkLayers(readTree()).map((v) => `${v.rule}: ${v.file} → ${v.target}`);
    expect(violations).toEqual([]);
  });

  it("catches db/ importing lib/", () => {
    const violations = checkLayers(
      tree({ "db/index.ts": { imports: ["lib/demo/seed.ts"] }, "lib/demo/seed.ts": {} }),
    );
    expect(violations).toEqual([
      expect.objectContaining({
        file: "db/index.ts",
        target: "lib/demo/seed.ts",
        rule: expect.stringMatching(/^db\//),
      }),
    ]);
  });

  it("catches a guardrail check importing anything but lib/core and the guardrails contract", () => {
    const violations = checkLayers(
      tree({
        "lib/guardrails/checks/pii.ts": {
          imports: ["lib/guardrails/types.ts", "lib/core/text/mask.ts", "lib/guardrails/engine.ts"],
        },
        "lib/guardrails/types.ts": {},
        "lib/core/text/mask.ts": {},
        "lib/guardrails/engine.ts": {},
      }),
    );
    expect(violations).toEqual([
      expect.objectContaining({ file: "lib/guardrails/checks/pii.ts", target: "lib/guardrails/engine.ts" }),
    ]);
  });

  it("catches a feature reaching into another feature past its public surface", () => {
    const violations = checkLayers(
      tree({
        "features/evals/server/runner.ts": {
          imports: [
            "features/prompts/server/store.ts",
            "features/prompts/server/index.ts",
            "features/prompts/contracts.ts",
            "features/evals/server/store.ts",
          ],
        },
        "features/replay/components/steps.tsx": {
          imports: ["features/drawer/components/markdown.tsx", "features/drawer/components/index.ts"],
        },
        "features/prompts/server/store.ts": {},
        "features/prompts/server/index.ts": {},
        "features/prompts/contracts.ts": {},
        "features/evals/server/store.ts": {},
        "features/drawer/components/markdown.tsx": {},
        "features/drawer/components/index.ts": {},
      }),
    );
    expect(violations.map((v) => `${v.file} → ${v.target}`)).toEqual([
      "features/evals/server/runner.ts → features/prompts/server/store.ts",
      "features/replay/components/steps.tsx → features/drawer/components/markdown.tsx",
    ]);
    expect(violations[0]!.rule).toMatch(/^a feature imports another feature only through/);
  });

  it("catches shared components/ and lib/ importing a feature", () => {
    const violations = checkLayers(
      tree({
        "components/ui/top-bar.tsx": { imports: ["features/drawer/components/index.ts"] },
        "lib/agent/service.ts": { imports: ["features/prompts/server/index.ts"] },
        "features/drawer/components/index.ts": {},
        "features/prompts/server/index.ts": {},
      }),
    );
    expect(violations.map((v) => [v.file, v.rule])).toEqual([
      ["components/ui/top-bar.tsx", "components/ (shared UI primitives) imports nothing from features/"],
      [
        "lib/agent/service.ts",
        "lib/ imports nothing from app/, components/, features/, scripts/, bench/ or tests/",
      ],
    ]);
  });

  it("catches an import cycle, between files and between lib/ domains", () => {
    const violations = checkLayers(
      tree({
        "lib/agent/tool.ts": { imports: ["lib/turns/conversation.ts"] },
        "lib/turns/conversation.ts": { imports: ["lib/agent/tool.ts"] },
      }),
    );
    const rules = violations.map((v) => v.rule);
    expect(rules).toContain("no import cycles");
    expect(rules).toContain("no lib/ domain imports another that imports it back");
    expect(rules).toContain(
      "lib/turns imports no domain (the provider-neutral types of lib/gateway and lib/core only)",
    );
  });

  it("catches browser code that reaches a server-only module, however far down", () => {
    const violations = checkLayers(
      tree({
        "components/drawer.tsx": { useClient: true, imports: ["components/api.ts"] },
        "components/api.ts": { imports: ["lib/keys/api-keys.ts"] },
        "lib/keys/api-keys.ts": { serverOnly: true },
      }),
    );
    expect(violations).toEqual([
      {
        rule: "browser code imports no server-only module",
        file: "components/drawer.tsx → components/api.ts",
        target: "lib/keys/api-keys.ts",
      },
    ]);
  });

  it("lets browser code import a server-only module's types", () => {
    const modules = tree({
      "components/drawer.tsx": { useClient: true },
      "lib/keys/api-keys.ts": { serverOnly: true },
    });
    modules.get("components/drawer.tsx")!.imports.push({ target: "lib/keys/api-keys.ts", typeOnly: true });
    expect(checkLayers(modules)).toEqual([]);
  });

  it("catches a contracts file that takes zod straight from the package (eval in the browser)", () => {
    const modules = tree({ "features/x/contracts.ts": {}, "features/x/client.ts": {} });
    modules.get("features/x/contracts.ts")!.external.push("zod");
    modules.get("features/x/client.ts")!.external.push("zod");
    expect(checkLayers(modules)).toEqual([
      expect.objectContaining({ file: "features/x/contracts.ts", target: "zod" }),
    ]);
  });
});
