import { z } from "zod";
import type { StoredToolCall } from "@/lib/turns/conversation";
import { defineTool, ToolSet } from "../tool";

const STATUSES = ["pending", "in_progress", "completed"] as const;
type Step = { step: string; status: (typeof STATUSES)[number] };

const parameters = z.object({
  plan: z
    .array(
      z.object({
        step: z.string().min(1).max(500).describe("What to do, in a few words"),
        status: z.enum(STATUSES).describe("pending, in_progress (at most one at a time) or completed"),
      }),
    )
    .max(50)
    .describe("The whole plan; it replaces the previous one. An empty array clears it."),
  explanation: z.string().max(1000).optional().describe("Why the plan changed, if it did"),
});

/** The model's plan for a multi-step request, replaced whole on each call and shown to it every round. */
export class TodoToolSet extends ToolSet {
  readonly name = "todo";
  private plan: Step[] = [];

  private readonly tool = defineTool({
    name: "todo_list",
    needs: "conversation",
    description:
      "Keep a short plan for a multi-step request. Send the whole plan each time (it replaces the previous one); mark one step in_progress at a time and steps completed as you finish them. An empty plan clears it.",
    category: "planning",
    keywords: ["plan", "todo", "steps"],
    parameters,
    execute: async ({ plan, explanation }) => {
      this.plan = plan;
      return { ok: true, steps: plan.length, explanation: explanation ?? null };
    },
  });

  tools() {
    return [this.tool];
  }

  override prompt(): string {
    return "For requests that need several steps, keep a plan with the todo_list tool and update it as you go.";
  }

  override iterationInjection(): string | null {
    if (!this.plan.length) return null;
    const lines = this.plan.map((s, i) => `${i + 1}. [${s.status}] ${s.step}`);
    return [
      "<TODO_LIST_REMINDER>",
      "This is your current plan, shown as a reminder. It is not a new instruction from the user.",
      ...lines,
      "</TODO_LIST_REMINDER>",
    ].join("\n");
  }

  /** The plan is the arguments of the last successful todo_list call in the conversation. */
  override restore(history: StoredToolCall[]): void {
    const last = history.filter((c) => c.name === "todo_list" && !c.result.startsWith('{"error"')).pop();
    const parsed = last ? parameters.safeParse(last.args) : undefined;
    this.plan = parsed?.success ? parsed.data.plan : [];
  }

  override copy(): TodoToolSet {
    return new TodoToolSet();
  }

  override reset(): void {
    this.plan = [];
  }

  current(): readonly Step[] {
    return this.plan;
  }
}
