import data from "./presets.json";

/** A known OpenAI-compatible service: where it is, which variable holds its key, how the catalog names it. */
export type Preset = { label: string; baseUrl: string; apiKeyEnv?: string; catalog?: string };

const { $comment: _, ...presets } = data;
export type PresetName = keyof typeof presets;

/** The presets (lib/gateway/presets.json), by name. */
export const PRESETS: Record<PresetName, Preset> = presets;

/** A preset by a config's name for it, or undefined for a name that is not one (never an inherited key). */
export const presetOf = (name: string | undefined): Preset | undefined =>
  name !== undefined && Object.hasOwn(PRESETS, name) ? PRESETS[name as PresetName] : undefined;
