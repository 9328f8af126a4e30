// The non-streamed call every path is measured with: the same chat completion ("Say ok."), made with either
// client (bench/overhead/clients.ts: plain fetch, or the official `openai` client), timed; failures are counted,
// not thrown.
import { CLIENTS, type Client, callerOf, type OneCall } from "./clients";
import { PATHS, type Path, type PerPath, perPath, type Target } from "./plan";

export class Calls {
  readonly ok = perPath(() => 0);
  readonly errors = perPath(() => 0);
  lastError = "";
  private readonly callers: Record<Client, PerPath<OneCall>>;

  constructor(targets: PerPath<Target>) {
    this.callers = Object.fromEntries(
      CLIENTS.map((c) => [
        c,
        Object.fromEntries(PATHS.map((p) => [p, callerOf(c, targets[p].endpoint)])) as PerPath<OneCall>,
      ]),
    ) as Record<Client, PerPath<OneCall>>;
  }

  /** The call's time in ms, or null when it failed. */
  async timeOne(p: Path, client: Client): Promise<number | null> {
    const t = performance.now();
    try {
      await this.callers[client][p]();
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
