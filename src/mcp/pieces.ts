/**
 * The token counts of the pieces a counter has met (tokens.ts), found by the piece's
 * UTF-8 bytes where they stand in the text's: an open-addressing table of typed arrays, so
 * that looking a piece up makes no string and no object. A page of answers is some 2,000 pieces;
 * a string and a regular-expression match for each were nearly half of what an MCP call allocated.
 * It keeps up to MAX_PIECES pieces of up to MAX_LENGTH bytes, and starts over when full.
 *
 * Most pieces are short (`":"`, `Id`, `,"`): a piece of up to four bytes is its own key, its
 * bytes read as one number and multiplied by an odd constant (one to one), so two short pieces
 * of one length with the same key are the same piece and no bytes are compared.
 */

const MAX_PIECES = 8_192;
const MAX_LENGTH = 64;
const SLOT_BITS = 14;
/** A slot's first number; slots are four numbers apart. */
const slotOf = (hash: number) => (hash >>> (32 - SLOT_BITS)) * 4;
const WRAP = (1 << SLOT_BITS) * 4 - 1;
const SHORT = 4;
/** What `get` answers for a piece not kept. */
export const NOT_KEPT = -1;
const EMPTY = NOT_KEPT;
/** A slot's four numbers, side by side so that a probe reads one cache line: the piece's hash, where its bytes start, its length, its count. */
const HASH = 0;
const START = 1;
const LENGTH = 2;
const COUNT = 3;

export class PieceCounts {
  private readonly slots = new Int32Array((1 << SLOT_BITS) * 4);
  /** the bytes of the kept pieces, one after another */
  private readonly kept = new Uint8Array(MAX_PIECES * 8);
  private used = 0;
  private size = 0;

  constructor() {
    this.clear();
  }

  /** The kept count of bytes[from, to), or EMPTY. */
  get(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (length > MAX_LENGTH) return EMPTY;
    const hash = hashOf(bytes, from, to);
    const slots = this.slots;
    for (let slot = slotOf(hash); slots[slot + COUNT] !== EMPTY; slot = (slot + 4) & WRAP) {
      if (slots[slot + HASH] === hash && slots[slot + LENGTH] === length && (length <= SHORT || sameBytes(this.kept, slots[slot + START], bytes, from, length))) {
        return slots[slot + COUNT];
      }
    }
    return EMPTY;
  }

  /** Keeps the count of bytes[from, to), when it is not too long. */
  set(bytes: Uint8Array, from: number, to: number, count: number): void {
    const length = to - from;
    if (length > MAX_LENGTH) return;
    if (this.size >= MAX_PIECES || this.used + length > this.kept.length) this.clear();
    const hash = hashOf(bytes, from, to);
    const slots = this.slots;
    let slot = slotOf(hash);
    while (slots[slot + COUNT] !== EMPTY) slot = (slot + 4) & WRAP;
    slots[slot + HASH] = hash;
    slots[slot + START] = this.used;
    slots[slot + LENGTH] = length;
    slots[slot + COUNT] = count;
    if (length > SHORT) {
      this.kept.set(bytes.subarray(from, to), this.used);
      this.used += length;
    }
    this.size++;
  }

  private clear(): void {
    for (let slot = COUNT; slot < this.slots.length; slot += 4) this.slots[slot] = EMPTY;
    this.used = 0;
    this.size = 0;
  }
}

/** A short piece's bytes as one number times an odd constant (one to one); FNV-1a of a longer one's. */
function hashOf(bytes: Uint8Array, from: number, to: number): number {
  if (to - from <= SHORT) {
    let packed = 0;
    for (let i = to - 1; i >= from; i--) packed = (packed << 8) | bytes[i];
    return Math.imul(packed, 0x9e3779b1);
  }
  return fnv1a(bytes, from, to);
}

/** FNV-1a of bytes[from, to), as a signed 32-bit number. */
export function fnv1a(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash;
}

/** Whether a[aFrom, aFrom + length) and b[bFrom, bFrom + length) hold the same bytes. */
export function sameBytes(a: Uint8Array, aFrom: number, b: Uint8Array, bFrom: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}
