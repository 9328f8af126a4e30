/**
 * The `deny_list` check: a tenant's terms, matched case-insensitively as whole words in any script. Terms are cut
 * into words and kept in a trie keyed by each word's hash (lib/guardrails/checks/words.ts), so the text is read once
 * and each position walks at most the longest term's words, however many terms there are.
 */
import type { GuardrailHit, TextCheck } from "@/lib/guardrails/types";
import { type Words, wordAt, wordsOf } from "./words";

type TrieNode = { word: string; next: Map<number, TrieNode>; term: boolean };

const node = (word: string): TrieNode => ({ word, next: new Map(), term: false });

function trieOf(terms: string[]): TrieNode {
  const root = node("");
  for (const term of terms) {
    // The term's words are cut like the text's, so "Project-Falcon" and "project falcon" are the same term.
    const words = wordsOf(term);
    if (!words.count) continue;
    let at = root;
    for (let i = 0; i < words.count; i++) {
      let child = at.next.get(words.hashes[i]!);
      if (!child) {
        child = node(wordAt(words, i));
        at.next.set(words.hashes[i]!, child);
      }
      at = child;
    }
    at.term = true;
  }
  return root;
}

// A hash match is confirmed by the word's text, so two words with one hash never match each other.
function childFor(at: TrieNode, words: Words, index: number): TrieNode | undefined {
  const child = at.next.get(words.hashes[index]!);
  return child && child.word === wordAt(words, index) ? child : undefined;
}

/** The `deny_list` check: each hit spans one whole term, the longest one starting at its first word. */
export function denyListCheck(terms: string[], label = "deny_list"): TextCheck {
  const root = trieOf(terms);
  return (text) => {
    const words = wordsOf(text);
    const hits: GuardrailHit[] = [];
    let i = 0;
    while (i < words.count) {
      let longest = -1;
      let at = childFor(root, words, i);
      for (let j = i; at; at = j + 1 < words.count ? childFor(at, words, ++j) : undefined)
        if (at.term) longest = j;
      if (longest < 0) {
        i++;
        continue;
      }
      hits.push({
        check: "deny_list",
        entity: label,
        start: words.starts[i]!,
        end: words.ends[longest]!,
        confidence: 1,
      });
      i = longest + 1;
    }
    return hits;
  };
}
