import { canonicalJson } from "../event-sourcing/event-checksum.ts";

/** A stream's head as a seal records it: its last revision and that event's chain mac. */
export interface StreamHead {
  readonly stream: string;
  readonly revision: number;
  readonly mac: string;
}

/**
 * The Merkle root over stream heads, ordered by stream name: one value that changes if any head
 * does, and that anyone holding the heads can recompute with SHA-256 alone.
 */
export const merkleRoot = (digest: (text: string) => string, heads: Iterable<StreamHead>): string => {
  const sorted = [...heads].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  let level = sorted.map((head) => digest(canonicalJson(["leaf", head.stream, head.revision, head.mac])));
  if (level.length === 0) return digest(canonicalJson(["empty"]));
  while (level.length > 1) {
    const next: Array<string> = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      next.push(right === undefined ? left : digest(canonicalJson(["node", left, right])));
    }
    level = next;
  }
  return level[0]!;
};
