import { describe, expect, it } from "vitest";
import type { ToolContext } from "@/lib/agent/tool";
import { MAX_SKILLS_PER_TURN, type ToolUse, ToolUses } from "@/lib/agent/tool-uses";
import { type SkillLibrary, skillsToolSet } from "@/lib/agent/toolsets/skills";
import { TurnProgress } from "@/lib/agent/turn-progress";
import { closedTurn } from "@/lib/governance/recorder";

const skill = (name: string, version: number): ToolUse => ({ kind: "skill", name, version });

describe("the skills a turn used", () => {
  it("keeps each skill and version once, in the order first loaded", () => {
    const uses = new ToolUses();
    expect(uses.summary()).toEqual({});
    uses.note(skill("refunds", 2));
    uses.note(skill("pdf", 1));
    uses.note(skill("refunds", 2));
    // The same skill at another version (edited mid-turn) is a use of its own.
    uses.note(skill("refunds", 3));
    expect(uses.summary()).toEqual({
      skills: [
        { name: "refunds", version: 2 },
        { name: "pdf", version: 1 },
        { name: "refunds", version: 3 },
      ],
    });
  });

  it(`records at most ${MAX_SKILLS_PER_TURN} skills a turn`, () => {
    const uses = new ToolUses();
    for (let i = 0; i < MAX_SKILLS_PER_TURN + 5; i++) uses.note(skill(`s${i}`, 1));
    const skills = uses.summary().skills!;
    expect(skills).toHaveLength(MAX_SKILLS_PER_TURN);
    expect(skills.at(-1)).toEqual({ name: `s${MAX_SKILLS_PER_TURN - 1}`, version: 1 });
  });

  it("puts them on the summary of a turn however it ended, and on the ledger row as two parallel arrays", () => {
    const progress = new TurnProgress("turn", "conversation", "team-gpt");
    expect(progress.summary().skills).toBeUndefined();
    progress.uses.note(skill("refunds", 2));
    progress.uses.note(skill("pdf", 7));
    progress.status = "stopped";
    const summary = progress.summary();
    expect(summary.skills).toEqual([
      { name: "refunds", version: 2 },
      { name: "pdf", version: 7 },
    ]);
    expect(closedTurn(summary)).toMatchObject({ skills: ["refunds", "pdf"], skillVersions: [2, 7] });
    // None loaded: unset, so the row keeps its empty default.
    const plain = closedTurn(new TurnProgress("t2", "c", "team-gpt").summary());
    expect(plain.skills).toBeUndefined();
    expect(plain.skillVersions).toBeUndefined();
  });
});

describe("skill_load", () => {
  const library: SkillLibrary = {
    live: async () => [{ name: "refunds", description: "Refund questions", version: 2 }],
    load: async (_tenant, name) =>
      name === "refunds"
        ? { name, version: 2, description: "Refund questions", instructions: "Cite the policy.", files: [] }
        : null,
    file: async () => null,
  };
  const [load] = skillsToolSet(library, [
    { name: "refunds", description: "Refund questions", version: 2 },
  ]).tools();
  const context = (noted: ToolUse[]): ToolContext => ({
    tenantId: "t",
    userId: "u",
    role: "member",
    conversationId: "c",
    turnId: "turn",
    signal: new AbortController().signal,
    emit: async () => {},
    addMessage: async () => {
      throw new Error("no messages here");
    },
    addUsage: () => {},
    noteUse: (use) => noted.push(use),
  });

  it("notes the skill and the version it loaded", async () => {
    const noted: ToolUse[] = [];
    await load!.execute({ name: "refunds" }, context(noted));
    expect(noted).toEqual([{ kind: "skill", name: "refunds", version: 2 }]);
  });

  it("notes nothing when there is no such skill", async () => {
    const noted: ToolUse[] = [];
    await expect(load!.execute({ name: "nope" }, context(noted))).rejects.toThrow('no skill "nope"');
    expect(noted).toEqual([]);
  });
});
