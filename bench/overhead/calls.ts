// The non-streamed call every path is measured with: the same chat completion ("Say ok.") with the official
// `openai` client, timed; failures are counted, not thrown.
import { type Path, type PerPath, perPath, type Target } from "./plan";

export class Calls {
  readonly ok = perPath(() => 0);
  readonly errors = perPath(() => 0);
  lastError = "";
  constructor(private readonly targets: PerPath<Target>) {}

  /** The call's time in ms, or null when it failed. */
  async timeOne(p: Path): Promise<number | null> {
    const t = performance.now();
    try {
      const res = await this.targets[p].client.chat.completions.create({
        model: this.targets[p].model,
        messages: [{ role: "user", content: "Say ok." }],
      });
      if (res.choices[0]?.message.content !== "ok")
        throw new Error(`unexpected answer: ${JSON.stringify(res)}`);
      this.ok[p]++;
      return performance.now() - t;
    } catch (error) {
      this.fail(p, error);
      return null;
    }
  }

  fail(p: Path, error: unknown): void {
    this.errors[p]++;
    this.lastError = `${p}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
