/**
 * The `deny_list` check: a tenant's terms, matched case-insensitively as whole words in any script. Terms are cut
 * into words and kept in a trie keyed by word, so the text is read once and each position walks at most the longest
 * term's words, however many terms there are.
 */
import type { GuardrailHit, TextCheck } from "@/lib/guardrails/types";
import { wordsOf } from "./words";

type TrieNode = { next: Map<string, TrieNode>; term: boolean };

const node = (): TrieNode => ({ next: new Map(), term: false });

function trieOf(terms: string[]): TrieNode {
  const root = node();
  for (const term of terms) {
    const words = wordsOf(term);
    if (!words.length) continue;
    let at = root;
    for (const word of words) {
      let child = at.next.get(word.text);
      if (!child) {
        child = node();
        at.next.set(word.text, child);
      }
      at = child;
    }
    at.term = true;
  }
  return root;
}

/** The `deny_list` check: each hit spans one whole term, the longest one starting at its first word. */
export function denyListCheck(terms: string[], label = "deny_list"): TextCheck {
  const root = trieOf(terms);
  return (text) => {
    const words = wordsOf(text);
    const hits: GuardrailHit[] = [];
    let i = 0;
    while (i < words.length) {
      let at = root.next.get(words[i]!.text);
      let longest = -1;
      for (let j = i; at; at = words[++j] ? at.next.get(words[j]!.text) : undefined) if (at.term) longest = j;
      if (longest < 0) {
        i++;
        continue;
      }
      hits.push({
        check: "deny_list",
        entity: label,
        start: words[i]!.start,
        end: words[longest]!.end,
        confidence: 1,
      });
      i = longest + 1;
    }
    return hits;
  };
}
