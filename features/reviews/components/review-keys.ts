// The review view's keyboard shortcuts as a pure mapping from a key press to an action, so the rules (never while
// typing, Ctrl/Cmd+Enter from the comment) are testable without a browser. Browser-safe.

export type ReviewKeyAction =
  | { type: "pick"; n: number }
  | { type: "yesNo"; yes: boolean }
  | { type: "submit" }
  | { type: "skip" }
  | { type: "dataset" }
  | { type: "help" }
  | { type: "closeHelp" };

/** What the handler needs of a keydown: the key, its modifiers, and where it happened. */
export type KeyPress = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  repeat: boolean;
  /** The target's tag (upper case, as the DOM says it) and whether it is editable text. */
  targetTag: string;
  targetEditable: boolean;
  /** Whether the target is one of the form's score option buttons (Enter there submits, not re-picks). */
  targetIsOption: boolean;
};

const TYPING_TAGS = new Set(["INPUT", "TEXTAREA", "SELECT"]);

/** Whether the key press happened where the user types text: no single-key shortcut fires there. */
export const isTyping = (press: Pick<KeyPress, "targetTag" | "targetEditable">) =>
  press.targetEditable || TYPING_TAGS.has(press.targetTag);

/** The action a key press asks for, or null to leave it to the browser. */
export function reviewKeyAction(press: KeyPress): ReviewKeyAction | null {
  if (press.key === "Enter" && (press.ctrlKey || press.metaKey) && !press.altKey && !press.repeat)
    return { type: "submit" };
  if (isTyping(press) || press.ctrlKey || press.metaKey || press.altKey) return null;
  if (press.key === "Escape") return { type: "closeHelp" };
  if (press.repeat) return null;
  if (press.key === "Enter") {
    // A focused link or button (Skip, the dataset's link) does what it says; a score option submits.
    if ((press.targetTag === "BUTTON" || press.targetTag === "A") && !press.targetIsOption) return null;
    return { type: "submit" };
  }
  if (press.key.length === 1 && press.key >= "1" && press.key <= "9")
    return { type: "pick", n: Number(press.key) };
  switch (press.key) {
    case "y":
    case "Y":
      return { type: "yesNo", yes: true };
    case "n":
    case "N":
      return { type: "yesNo", yes: false };
    case "s":
    case "S":
      return { type: "skip" };
    case "d":
    case "D":
      return { type: "dataset" };
    case "?":
      return { type: "help" };
    default:
      return null;
  }
}

/** A DOM keydown as the handler reads it. */
export function keyPressOf(event: KeyboardEvent): KeyPress {
  const target = event.target instanceof HTMLElement ? event.target : null;
  return {
    key: event.key,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    altKey: event.altKey,
    repeat: event.repeat,
    targetTag: target?.tagName ?? "",
    targetEditable: target?.isContentEditable ?? false,
    targetIsOption: target?.dataset.reviewOption !== undefined,
  };
}
