import type { SkillUse } from "@/lib/turns/events";

/**
 * What a tool call used that the turn's ledger row names (ToolContext.noteUse): today a skill it loaded. Tools
 * report it themselves, so the loop and /mcp never look at a tool's name or parse its result.
 */
export type ToolUse = { kind: "skill"; name: string; version: number };

/** More distinct skills than this in one turn are not recorded (a ledger row stays small whatever the model does). */
export const MAX_SKILLS_PER_TURN = 32;

/** The uses one turn's tool calls noted: each skill and version once, in the order first loaded. */
export class ToolUses {
  private readonly skillKeys = new Set<string>();
  private readonly skillList: SkillUse[] = [];

  readonly note = (use: ToolUse): void => {
    const key = `${use.name}\u0000${use.version}`;
    if (this.skillKeys.has(key) || this.skillList.length >= MAX_SKILLS_PER_TURN) return;
    this.skillKeys.add(key);
    this.skillList.push({ name: use.name, version: use.version });
  };

  /** For the turn's summary: the skills, or nothing when it loaded none (the row keeps its empty default). */
  summary(): { skills?: SkillUse[] } {
    return this.skillList.length ? { skills: [...this.skillList] } : {};
  }
}
