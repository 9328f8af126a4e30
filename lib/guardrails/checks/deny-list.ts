/**
 * The `deny_list` check: a tenant's terms, matched case-insensitively as whole words in any script. Terms are cut
 * into words and kept in a trie keyed by each word's hash (lib/guardrails/checks/words.ts), so the text is read once
 * and each position walks at most the longest term's words, however many terms there are.
 */
import type { GuardrailHit, TextCheck } from "@/lib/guardrails/types";
import { type Words, wordAt, wordsOf } from "./words";

// Children are keyed by their word's hash; words that share a hash are chained through `sameHash`.
type TrieNode = { word: string; next: Map<number, TrieNode>; term: boolean; sameHash?: TrieNode };

const node = (word: string): TrieNode => ({ word, next: new Map(), term: false });

function childOf(at: TrieNode, hash: number, word: string): TrieNode | undefined {
  for (let child = at.next.get(hash); child; child = child.sameHash) if (child.word === word) return child;
  return undefined;
}

function trieOf(terms: string[]): TrieNode {
  const root = node("");
  for (const term of terms) {
    // The term's words are cut like the text's, so "Project-Falcon" and "project falcon" are the same term.
    const words = wordsOf(term);
    if (!words.count) continue;
    let at = root;
    for (let i = 0; i < words.count; i++) {
      const hash = words.hashes[i]!;
      const word = wordAt(words, i);
      let child = childOf(at, hash, word);
      if (!child) {
        child = { ...node(word), sameHash: at.next.get(hash) };
        at.next.set(hash, child);
      }
      at = child;
    }
    at.term = true;
  }
  return root;
}

// A hash match is confirmed by the word's text, so two words with one hash never match each other; the text of a
// word is only cut out when its hash is among the children.
function childFor(at: TrieNode, words: Words, index: number): TrieNode | undefined {
  const hash = words.hashes[index]!;
  return at.next.has(hash) ? childOf(at, hash, wordAt(words, index)) : undefined;
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
