import type { ToolSchema } from "@/lib/gateway/types";
import type { StoredToolCall } from "@/lib/turns/conversation";
import type { Tool, ToolSet } from "./tool";

/** A registered tool as a catalogue shows it: what it is, who may call it, and which tool set offers it. */
export type ToolListing = Pick<
  Tool,
  "name" | "description" | "category" | "roles" | "hidden" | "timeoutMs" | "schema"
> & { toolSet: string };

const MAX_CACHED_CONVERSATIONS = 500;

/**
 * Tool sets a tenant brings at run time (its registered MCP servers): asked for on every turn of that tenant,
 * after the app's own sets; their tool names are namespaced (`server__tool`) so they cannot shadow the app's.
 */
export interface TenantToolSource {
  toolSets(tenantId: string): Promise<ToolSet[]>;
}

/** The tool sets of the app, registered once at start; each conversation gets its own copies. */
export class ToolRegistry {
  private readonly sets: ToolSet[] = [];
  private readonly owners = new Map<string, string>();
  private readonly perConversation = new Map<string, ToolSet[]>();
  private tenantSource: TenantToolSource | null = null;

  /** Where tenants' own tool sets come from (set once by the composition root). */
  setTenantSource(source: TenantToolSource): this {
    this.tenantSource = source;
    return this;
  }

  /** The tenant's own tool sets (none without a source); an app tool's name always wins over a tenant's. */
  async tenantToolSets(tenantId: string): Promise<ToolSet[]> {
    if (!this.tenantSource) return [];
    const sets = await this.tenantSource.toolSets(tenantId);
    return sets.filter((set) => !set.tools().some((t) => this.owners.has(t.name)));
  }

  /** Adds a tool set; a tool name already taken fails at once, naming both owners. */
  register(set: ToolSet): this {
    if (this.sets.some((s) => s.name === set.name))
      throw new Error(`tool set "${set.name}" is registered twice`);
    for (const tool of set.tools()) {
      const owner = this.owners.get(tool.name);
      if (owner) throw new Error(`tool "${tool.name}" is defined by both "${owner}" and "${set.name}"`);
    }
    for (const tool of set.tools()) this.owners.set(tool.name, set.name);
    this.sets.push(set);
    return this;
  }

  toolSets(): readonly ToolSet[] {
    return this.sets;
  }

  tools(): Tool[] {
    return this.sets.flatMap((s) => s.tools());
  }

  /** The visible tools of the named tool sets as the model sees them (offered, not run: evaluation targets). */
  schemasOf(toolSets: readonly string[]): ToolSchema[] {
    return this.sets
      .filter((set) => toolSets.includes(set.name))
      .flatMap((set) => set.tools().filter((t) => !t.hidden))
      .map((t) => t.schema);
  }

  /** Every registered tool with the name of its tool set, in registration order. */
  listTools(): ToolListing[] {
    return this.sets.flatMap((set) =>
      set.tools().map(({ name, description, category, roles, hidden, timeoutMs, schema }) => ({
        name,
        description,
        category,
        roles,
        hidden,
        timeoutMs,
        schema,
        toolSet: set.name,
      })),
    );
  }

  /**
   * The conversation's own tool sets (copies with their own state), rebuilt from its history the first time
   * this process sees it; the most recently used conversations stay cached.
   */
  forConversation(conversationId: string, history: () => StoredToolCall[]): ToolSet[] {
    const cached = this.perConversation.get(conversationId);
    if (cached) {
      this.perConversation.delete(conversationId);
      this.perConversation.set(conversationId, cached);
      return cached;
    }
    const calls = history();
    const copies = this.sets.map((s) => {
      const copy = s.copy();
      copy.restore(calls);
      return copy;
    });
    this.perConversation.set(conversationId, copies);
    if (this.perConversation.size > MAX_CACHED_CONVERSATIONS) {
      const oldest = this.perConversation.keys().next().value;
      if (oldest !== undefined) this.perConversation.delete(oldest);
    }
    return copies;
  }

  /** Drops a conversation's state (deleted conversation). */
  forget(conversationId: string): void {
    this.perConversation.delete(conversationId);
  }
}
