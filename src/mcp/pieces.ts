/**
 * The token counts of the pieces a counter has met (tokens.ts), found by the piece's
 * characters where they stand in the text: an open-addressing table of typed arrays, so that
 * looking a piece up makes no string and no object. A page of answers is some 2,000 pieces;
 * a string and a regular-expression match for each were nearly half of what an MCP call allocated.
 * It keeps up to MAX_PIECES pieces of up to MAX_LENGTH characters, and starts over when full.
 */

const MAX_PIECES = 50_000;
const MAX_LENGTH = 64;
const SLOTS = 1 << 17;
const MASK = SLOTS - 1;
/** What `get` answers for a piece not kept. */
export const NOT_KEPT = -1;
const EMPTY = NOT_KEPT;

export class PieceCounts {
  private readonly hashes = new Int32Array(SLOTS);
  private readonly starts = new Int32Array(SLOTS);
  private readonly lengths = new Int32Array(SLOTS);
  private readonly counts = new Int32Array(SLOTS).fill(EMPTY);
  /** the characters of the kept pieces, one after another */
  private readonly chars = new Uint16Array(MAX_PIECES * 8);
  private used = 0;
  private size = 0;

  /** The kept count of text[from, to), or EMPTY. */
  get(text: string, from: number, to: number): number {
    const length = to - from;
    if (length > MAX_LENGTH) return EMPTY;
    const hash = hashOf(text, from, to);
    for (let slot = hash & MASK; this.counts[slot] !== EMPTY; slot = (slot + 1) & MASK) {
      if (this.hashes[slot] === hash && this.lengths[slot] === length && this.same(slot, text, from, length)) return this.counts[slot];
    }
    return EMPTY;
  }

  /** Keeps the count of text[from, to), when it is not too long. */
  set(text: string, from: number, to: number, count: number): void {
    const length = to - from;
    if (length > MAX_LENGTH) return;
    if (this.size >= MAX_PIECES || this.used + length > this.chars.length) this.clear();
    const hash = hashOf(text, from, to);
    let slot = hash & MASK;
    while (this.counts[slot] !== EMPTY) slot = (slot + 1) & MASK;
    this.hashes[slot] = hash;
    this.starts[slot] = this.used;
    this.lengths[slot] = length;
    this.counts[slot] = count;
    for (let i = 0; i < length; i++) this.chars[this.used + i] = text.charCodeAt(from + i);
    this.used += length;
    this.size++;
  }

  private same(slot: number, text: string, from: number, length: number): boolean {
    const start = this.starts[slot];
    for (let i = 0; i < length; i++) if (this.chars[start + i] !== text.charCodeAt(from + i)) return false;
    return true;
  }

  private clear(): void {
    this.counts.fill(EMPTY);
    this.used = 0;
    this.size = 0;
  }
}

/** FNV-1a of the characters text[from, to). */
function hashOf(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}
