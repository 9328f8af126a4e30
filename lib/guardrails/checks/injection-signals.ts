/**
 * The signals of the injection check, as data: word sets matched over the text's lower-case words (lib/guardrails/
 * checks/words.ts), each with a weight. A phrase is a trigger word followed, within a few words, by one word of each
 * further set, in any order; so "ignore all previous instructions", "ignoriere alle vorherigen Anweisungen" and
 * "ignorez les instructions précédentes" are one rule. Chinese has no spaces: its characters are words of their own.
 */
import { WordSet } from "./words";

export type PhraseSignal = {
  name: string;
  /** Signals about escaping the model's rules are "jailbreak"; the rest "injection". */
  entity: "injection" | "jailbreak";
  weight: number;
  trigger: WordSet;
  /** Each set must be met by some word within `reach` words after the trigger. */
  followedBy: WordSet[];
  reach: number;
  /** Only counted on the indirect path (text from a tool, a file, a context item, an MCP description). */
  indirectOnly?: boolean;
  /**
   * The trigger must be spoken to: followed by "," or ":" ("Assistant, please…") or after a word of address ("Hey
   * model", "note to the AI"), so "our assistant will send the invoice" is not addressed to the model.
   */
  addressed?: boolean;
};

const set = (words: string) => new WordSet(words.split(/\s+/).filter(Boolean));

const OVERRIDE_VERBS = set(`
  ignore ignoring disregard disregarding forget override overriding bypass skip discard abandon drop
  ignoriere ignorier ignorieren ignoriert vergiss vergessen vergesst missachte missachten übergehe
  ignorez ignorer oublie oubliez oublier négligez
  ignora ignorá ignoren ignorar olvida olvidá olvide olviden olvidar omite descarta
`);
const INSTRUCTIONS = set(`
  instructions instruction rules prompt prompts directions directives guidelines guardrails commands orders context
  anweisungen anweisung instruktionen regeln befehle vorgaben anordnungen richtlinien
  consignes règles directives
  instrucciones reglas indicaciones directrices órdenes normas
`);
const EARLIER = set(`
  previous prior above earlier preceding all any your system initial original former foregoing existing
  vorherigen vorherige bisherigen obigen alle allen vorigen früheren deine ihre ursprünglichen
  précédentes précédente antérieures toutes tous vos tes dessus
  anteriores previas todas todos tus sus originales
`);
const REVEAL_VERBS = set(`
  reveal show print repeat output display tell leak dump disclose what whats recite
  zeige zeig gib verrate nenne wiederhole
  révèle révélez affiche affichez montre montrez répète
  revela muestra muéstrame dime repite imprime
`);
// Not "original": "the original instructions for the assignment" is a student's question.
const HIDDEN = set("system initial hidden secret internal developer systemprompt");
const PROMPT_WORDS = set("prompt instructions message systemprompt anweisungen instructions instrucciones");

export const PHRASES: PhraseSignal[] = [
  {
    name: "override",
    entity: "injection",
    weight: 0.85,
    trigger: OVERRIDE_VERBS,
    followedBy: [INSTRUCTIONS, EARLIER],
    reach: 5,
  },
  {
    name: "stop_following",
    entity: "injection",
    weight: 0.8,
    trigger: set("stop quit cease"),
    followedBy: [set("following obeying applying respecting"), INSTRUCTIONS],
    reach: 4,
  },
  {
    name: "reveal",
    entity: "injection",
    weight: 0.75,
    trigger: REVEAL_VERBS,
    followedBy: [HIDDEN, PROMPT_WORDS],
    reach: 5,
  },
  {
    name: "persona",
    entity: "jailbreak",
    weight: 0.85,
    trigger: set("now jetzt maintenant ahora"),
    followedBy: [set("dan unrestricted unfiltered jailbroken uncensored evil stan dude aim developer")],
    reach: 3,
  },
  {
    name: "do_anything_now",
    entity: "jailbreak",
    weight: 0.8,
    trigger: set("do"),
    followedBy: [set("anything"), set("now")],
    reach: 2,
  },
  {
    name: "developer_mode",
    entity: "jailbreak",
    weight: 0.6,
    trigger: set("developer debug god"),
    followedBy: [set("mode modus")],
    reach: 1,
  },
  {
    name: "no_restrictions",
    entity: "jailbreak",
    weight: 0.7,
    trigger: set("pretend act roleplay imagine simulate behave"),
    followedBy: [
      set("no without free unrestricted unfiltered uncensored"),
      set("restrictions limits limitations filters rules guidelines censorship ethics morals"),
    ],
    reach: 8,
  },
  {
    name: "new_instructions",
    entity: "injection",
    weight: 0.5,
    trigger: set("new updated revised real actual true neue nouvelles nuevas"),
    followedBy: [set("instructions instruction task anweisungen instructions instrucciones")],
    reach: 1,
  },
  {
    name: "keep_from_user",
    entity: "injection",
    weight: 0.5,
    trigger: set("don't dont not without never"),
    followedBy: [
      set("tell telling mention mentioning inform informing reveal revealing show"),
      set("user user's users"),
    ],
    reach: 4,
  },
  // The indirect path: text a tool or a document hands the model, speaking to it.
  {
    name: "addressed_to_model",
    entity: "injection",
    weight: 0.5,
    // Not "agent": "the agent must renew the licence" is how contracts speak of people.
    trigger: set("ai assistant assistants model llm chatbot claude chatgpt gpt copilot gemini"),
    addressed: true,
    followedBy: [
      set(
        "you must should need please now ignore stop instead send email forward export execute run call delete reveal include output visit open transfer authorised authorized allowed permitted",
      ),
    ],
    reach: 4,
    indirectOnly: true,
  },
  {
    name: "when_you_read",
    entity: "injection",
    weight: 0.5,
    trigger: set("when if once after"),
    followedBy: [set("you"), set("read reading process processing see summarize summarise are")],
    reach: 2,
    indirectOnly: true,
  },
  {
    name: "exfiltrate",
    entity: "injection",
    weight: 0.35,
    trigger: set("send email forward upload post transfer exfiltrate leak share export"),
    followedBy: [
      set("to"),
      set(
        "password passwords credentials keys key token tokens conversation history data contacts files secrets records database customers emails",
      ),
    ],
    reach: 6,
    indirectOnly: true,
  },
];

/** Words that make the next one spoken to. */
export const ADDRESS_WORDS = set("hey hi dear attention to");

/** Literal markers of chat templates: text that carries one is trying to speak as the system or another role. */
export const ROLE_TAGS = [
  "<|im_start|>",
  "<|im_end|>",
  "<|system|>",
  "<|start_header_id|>",
  "<|endoftext|>",
  "[inst]",
  "[/inst]",
  "<<sys>>",
  "### system:",
  "### instruction:",
  "### instructions:",
  "system: you are",
  "<system>",
  "</system>",
];

/** Chinese "ignore/disregard … instructions": the verbs and the nouns, at most 12 characters apart. */
export const CHINESE_OVERRIDE = {
  verbs: ["忽略", "无视", "忽视", "忘记", "不要理会"],
  nouns: ["指令", "指示", "提示", "规则", "命令", "说明"],
  reach: 12,
};
