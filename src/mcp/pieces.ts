/**
 * The token counts of the pieces a counter has met (tokens.ts), found by the piece's
 * characters where they stand in the text: an open-addressing table of typed arrays, so that
 * looking a piece up makes no string and no object. A page of answers is some 2,000 pieces;
 * a string and a regular-expression match for each were nearly half of what an MCP call allocated.
 * It keeps up to MAX_PIECES pieces of up to MAX_LENGTH characters, and starts over when full.
 */

const MAX_PIECES = 16_384;
const MAX_LENGTH = 64;
const SLOTS = MAX_PIECES * 2;
const MASK = SLOTS - 1;
/** What `get` answers for a piece not kept. */
export const NOT_KEPT = -1;
const EMPTY = NOT_KEPT;
/** A slot's four numbers, side by side so that a probe reads one cache line: the piece's hash, where its characters start, its length, its count. */
const HASH = 0;
const START = 1;
const LENGTH = 2;
const COUNT = 3;

export class PieceCounts {
  private readonly slots = new Int32Array(SLOTS * 4);
  /** the characters of the kept pieces, one after another */
  private readonly chars = new Uint16Array(MAX_PIECES * 8);
  private used = 0;
  private size = 0;

  constructor() {
    this.clear();
  }

  /** The kept count of text[from, to), or EMPTY. */
  get(text: string, from: number, to: number): number {
    const length = to - from;
    if (length > MAX_LENGTH) return EMPTY;
    const hash = hashOf(text, from, to);
    const slots = this.slots;
    for (let slot = (hash & MASK) * 4; slots[slot + COUNT] !== EMPTY; slot = (slot + 4) & (MASK * 4 + 3)) {
      if (slots[slot + HASH] === hash && slots[slot + LENGTH] === length && this.same(slots[slot + START], text, from, length)) return slots[slot + COUNT];
    }
    return EMPTY;
  }

  /** Keeps the count of text[from, to), when it is not too long. */
  set(text: string, from: number, to: number, count: number): void {
    const length = to - from;
    if (length > MAX_LENGTH) return;
    if (this.size >= MAX_PIECES || this.used + length > this.chars.length) this.clear();
    const hash = hashOf(text, from, to);
    const slots = this.slots;
    let slot = (hash & MASK) * 4;
    while (slots[slot + COUNT] !== EMPTY) slot = (slot + 4) & (MASK * 4 + 3);
    slots[slot + HASH] = hash;
    slots[slot + START] = this.used;
    slots[slot + LENGTH] = length;
    slots[slot + COUNT] = count;
    for (let i = 0; i < length; i++) this.chars[this.used + i] = text.charCodeAt(from + i);
    this.used += length;
    this.size++;
  }

  private same(start: number, text: string, from: number, length: number): boolean {
    for (let i = 0; i < length; i++) if (this.chars[start + i] !== text.charCodeAt(from + i)) return false;
    return true;
  }

  private clear(): void {
    for (let slot = COUNT; slot < this.slots.length; slot += 4) this.slots[slot] = EMPTY;
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
