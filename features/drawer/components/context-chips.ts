// The context chips of the composer and of sent messages: pure, so the rules are tested without a browser.
import {
  CONTEXT_TYPES,
  type ContextChip,
  type ContextItemRef,
  MAX_CONTEXT_ITEMS,
  type MessageInputs,
  type UploadedFile,
} from "@/features/drawer/contracts";

export const chipKey = (chip: ContextItemRef) => `${chip.type}:${chip.id}`;

/**
 * Adds a chip: the same object twice stays one chip (its label refreshed), and past the limit of one message
 * nothing is added (`full`), so the chips shown are always the ones that will be sent.
 */
export function addChip(chips: ContextChip[], chip: ContextChip): { chips: ContextChip[]; full: boolean } {
  const key = chipKey(chip);
  if (chips.some((c) => chipKey(c) === key))
    return { chips: chips.map((c) => (chipKey(c) === key ? chip : c)), full: false };
  if (chips.length >= MAX_CONTEXT_ITEMS) return { chips, full: true };
  return { chips: [...chips, chip], full: false };
}

export const removeChip = (chips: ContextChip[], key: string) => chips.filter((c) => chipKey(c) !== key);

/** What a turn request carries: the references only; the server loads each and names it. */
export const chipRefs = (chips: ContextChip[]): ContextItemRef[] =>
  chips.map(({ type, id }) => ({ type, id }));

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isContextType = (v: unknown): v is ContextChip["type"] =>
  typeof v === "string" && (CONTEXT_TYPES as readonly string[]).includes(v);

/** A stored user message's chips and files (`data.context`, `data.attachments`); anything malformed is left out. */
export function inputsOf(data: unknown): MessageInputs {
  if (!isRecord(data)) return {};
  const context = Array.isArray(data.context)
    ? data.context.flatMap((c): ContextChip[] =>
        isRecord(c) && isContextType(c.type) && typeof c.id === "string"
          ? [{ type: c.type, id: c.id, label: typeof c.label === "string" && c.label ? c.label : c.id }]
          : [],
      )
    : [];
  const attachments = Array.isArray(data.attachments)
    ? data.attachments.flatMap((f): UploadedFile[] =>
        isRecord(f) && typeof f.id === "string" && typeof f.name === "string"
          ? [
              {
                id: f.id,
                name: f.name,
                type: typeof f.type === "string" ? f.type : "",
                size: typeof f.size === "number" ? f.size : 0,
              },
            ]
          : [],
      )
    : [];
  return {
    ...(context.length ? { context } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
}

export const hasInputs = (inputs: MessageInputs | undefined) =>
  Boolean(inputs?.context?.length || inputs?.attachments?.length);
