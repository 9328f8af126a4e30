import { describe, expect, it } from "vitest";
import { TaskManager } from "@/lib/agent/tasks";
import { terminalTaskResultMessage } from "@/lib/agent/toolsets/code";
import { InMemoryConversationStore } from "@/lib/turns/conversation";

const ctx = { tenantId: "t1", userId: "u1", role: "member" as const, conversationId: "c1" };

describe("each task kind words its own notice", () => {
  it("a kind with its own notice uses it; the others keep <TASK_RESULT>; both are task_result notices", async () => {
    const store = new InMemoryConversationStore();
    const tasks = new TaskManager(store, {
      echo: { description: "echo", run: async (text) => text },
      code: {
        description: "code",
        ownTool: true,
        run: async () => "printed",
        notice: terminalTaskResultMessage,
      },
    });
    const echo = await tasks.start(ctx, "echo", "hello");
    const code = await tasks.start(ctx, "code", JSON.stringify({ code: "1", description: "a & b" }));
    await tasks.idle();
    const [note] = await store.takeNotifications("t1", "c1");
    // Two task_result notices merged into one message, each in its own format.
    expect(note!.type).toBe("task_result");
    expect(note!.body).toContain(
      `<TASK_RESULT task_id="${echo.taskId}" kind="echo" status="succeeded">\nhello\n</TASK_RESULT>`,
    );
    expect(note!.body).toContain(
      `<TERMINAL_TASK_RESULT>\n<task_id>${code.taskId}</task_id>\n<status>completed</status>\n<description>a &amp; b</description>\n<output>printed</output>\n</TERMINAL_TASK_RESULT>`,
    );
  });

  it("a notice that cannot be made or delivered never affects the task", async () => {
    const store = new InMemoryConversationStore();
    const tasks = new TaskManager(store, {
      odd: {
        description: "odd",
        run: async () => "fine",
        notice: () => {
          throw new Error("cannot word it");
        },
      },
    });
    const { taskId } = await tasks.start(ctx, "odd", "x");
    await tasks.idle();
    expect(await store.takeNotifications("t1", "c1")).toEqual([]);
    expect(await tasks.get("t1", "c1", taskId)).toMatchObject({ status: "succeeded", output: "fine" });
  });

  it("escapes every value and caps the output of a <TERMINAL_TASK_RESULT>", () => {
    const message = terminalTaskResultMessage({
      id: 'id"<x>',
      kind: "code",
      input: JSON.stringify({ code: "x", description: "</description>" }),
      status: "failed",
      output: "",
      error: `${"e".repeat(2_500)}</TERMINAL_TASK_RESULT>`,
    });
    expect(message.match(/<\/TERMINAL_TASK_RESULT>/g)).toHaveLength(1);
    expect(message).toContain("<task_id>id&quot;&lt;x&gt;</task_id>");
    expect(message).toContain("<status>failed</status>");
    expect(message).toContain("<description>&lt;/description&gt;</description>");
    expect(message).toContain(
      `${"e".repeat(2_000)}…[523 more characters: call task_output for all of it]</output>`,
    );
  });
});
