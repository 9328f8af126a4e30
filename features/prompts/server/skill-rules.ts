// The skill rules the routes, the store and the browser share: bounds and the name rule. Browser-safe.

/** A skill's bounds: what an import or a save may hold (the zip's decompressed size is bounded the same). */
export const SKILL_LIMITS = {
  maxFiles: 100,
  maxFileBytes: 256 * 1024,
  /** SKILL.md's instructions and every file, decompressed. */
  maxTotalBytes: 1024 * 1024,
  /** An uploaded zip, compressed. */
  maxZipBytes: 2 * 1024 * 1024,
  maxPathLength: 255,
  maxDescription: 1024,
  /** How many skills the model is told about (by name) in one turn. */
  maxLiveSkills: 100,
} as const;

/** Path words under /api/skills/ that cannot be a skill's name. */
const RESERVED = ["import"];

/** Agent Skills' rule: lowercase letters, digits and hyphens, at most 64 characters. Null when it is fine. */
export function skillNameProblem(name: string): string | null {
  if (!/^[a-z0-9-]{1,64}$/.test(name))
    return `"${name.slice(0, 80)}" is not a skill name: lowercase letters, digits and "-", at most 64 characters`;
  if (RESERVED.includes(name)) return `"${name}" is reserved; choose another name`;
  return null;
}
