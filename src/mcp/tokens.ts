import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fnv1a, NOT_KEPT, PieceCounts, sameBytes } from './pieces.js';
import { byteSplitter } from './split.js';

/**
 * Counts o200k_base tokens as gpt-tokenizer counts them, every string as ordinary text (no
 * special tokens), from gpt-tokenizer's own o200k_base data and split pattern
 * (docs/decisions.md, "The MCP server"). The library's encoder keeps its 200,000 tokens as
 * strings in a Map and an array, some 65 MiB of a process, more than the rest of the MCP
 * server; a count needs only each token's bytes and rank: here one buffer of them and a hash
 * table, in typed arrays of some 6 MiB. The algorithm is the library's: the text is split by the
 * pattern, and each piece is one token when it is one, else the byte pairs of lowest rank
 * are merged until none is a token, each pair looked up as the library looks it up (a pair
 * of valid UTF-8 as its text, which drops a leading byte order mark; any other by its
 * bytes). test/mcp/metering.test.ts holds counts to the library's.
 *
 * A text's tokens are the sum of its pieces' (a piece split again alone is that one piece),
 * and the answers of one API repeat their pieces (names, punctuation, field names): each
 * piece's count is kept (pieces.ts). The pieces are where the pattern ends them, found by
 * a scan of the text's UTF-8 bytes that leaves any character beyond ASCII to the pattern
 * (split.ts).
 */

const NONE = 0x7fffffff;

export type CountTokens = (text: string) => number;

export async function loadTokenCounter(): Promise<CountTokens> {
  const require = createRequire(import.meta.url);
  const [data, { O200K_TOKEN_SPLIT_REGEX }] = await Promise.all([
    readFile(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken')),
    import('gpt-tokenizer/encodingParams/constants'),
  ]);
  const ranks = vocabulary(data);
  const split = byteSplitter(O200K_TOKEN_SPLIT_REGEX);
  const encoder = new TextEncoder();
  let bytes = new Uint8Array(16_384);
  let scratch = new Uint8Array(256);
  const kept = new PieceCounts();

  /** The tokens of bytes[from, to): one when they are a token's text, else their pairs merged. */
  const countPiece = (from: number, to: number, wellFormed: boolean): number => {
    // A piece with a lone surrogate (written as U+FFFD) is never one token's text.
    if (wellFormed && ranks.find(bytes, from, to, true) !== NONE) return 1;
    if (scratch.length < to - from) scratch = new Uint8Array(to - from);
    scratch.set(bytes.subarray(from, to));
    return merged(ranks, scratch, to - from);
  };

  let tokens = 0;
  const visit = (from: number, to: number, wellFormed: boolean) => {
    // A lone surrogate's bytes are those of U+FFFD: such a piece is not kept.
    let count = wellFormed ? kept.get(bytes, from, to) : NOT_KEPT;
    if (count === NOT_KEPT) {
      count = countPiece(from, to, wellFormed);
      if (wellFormed) kept.set(bytes, from, to, count);
    }
    tokens += count;
  };

  return (text) => {
    if (bytes.length < text.length * 3) bytes = new Uint8Array(text.length * 3);
    const end = encoder.encodeInto(text, bytes).written;
    tokens = 0;
    split(text, bytes, end, visit);
    return tokens;
  };
}

/** The tokens of a piece that is no token itself: its bytes, merged pair by pair, the pair of lowest rank first. */
function merged(ranks: Vocabulary, bytes: Uint8Array, length: number): number {
  // starts[i]: where the i-th part begins; rank[i]: the rank of parts i and i + 1 joined.
  const starts: number[] = [];
  const rank: number[] = [];
  for (let i = 0; i <= length; i++) {
    starts.push(i);
    rank.push(i < length - 1 ? pairRankOf(ranks, bytes, i, i + 2) : NONE);
  }
  const pairRank = (i: number) => (i + 2 < starts.length ? pairRankOf(ranks, bytes, starts[i], starts[i + 2]) : NONE);
  while (starts.length > 1) {
    let lowest = NONE;
    let at = -1;
    for (let i = 0; i < rank.length - 1; i++) {
      if (rank[i] < lowest) {
        lowest = rank[i];
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    rank.splice(at, 1);
    rank[at] = pairRank(at);
    if (at > 0) rank[at - 1] = pairRank(at - 1);
  }
  return starts.length - 1;
}

/** The rank of the pair bytes[from, to), looked up as the library looks one up: valid UTF-8 as its text, a leading byte order mark dropped; else by its bytes. */
function pairRankOf(ranks: Vocabulary, bytes: Uint8Array, from: number, to: number): number {
  if (!validUtf8(bytes, from, to)) return ranks.find(bytes, from, to, false);
  const bom = to - from >= 3 && bytes[from] === 0xef && bytes[from + 1] === 0xbb && bytes[from + 2] === 0xbf;
  return ranks.find(bytes, bom ? from + 3 : from, to, true);
}

interface Vocabulary {
  /** the rank of the token of bytes[from, to) kept as text (valid UTF-8 without a leading byte order mark) or, `text` false, kept as bytes; or NONE */
  find(bytes: Uint8Array, from: number, to: number, text: boolean): number;
}

/** The tokens of a `.tiktoken` file (a base64 token and its rank a line): their bytes in one buffer, found by an open-addressing hash. */
function vocabulary(data: Uint8Array): Vocabulary {
  let count = 0;
  for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, at + 1)) count++;
  if (data.length > 0 && data[data.length - 1] !== NEWLINE) count++;
  // Read from the file's bytes: a string a line would be 400,000 strings of garbage at once.
  const written = new Uint8Array(data.length);
  const start = new Int32Array(count);
  const end = new Int32Array(count);
  const rankOf = new Int32Array(count);
  const isText = new Uint8Array(count);
  const mask = (1 << Math.ceil(Math.log2(count * 2))) - 1;
  const slots = new Int32Array(mask + 1).fill(-1);
  let used = 0;
  let i = 0;
  for (let line = 0; line < data.length && i < count; i++) {
    const space = data.indexOf(SPACE, line);
    const next = data.indexOf(NEWLINE, space);
    const lineEnd = next === -1 ? data.length : next;
    start[i] = used;
    used = decodeBase64(data, line, space, written, used);
    end[i] = used;
    let rank = 0;
    for (let at = space + 1; at < lineEnd; at++) rank = rank * 10 + (data[at] - 0x30);
    rankOf[i] = rank;
    line = lineEnd + 1;
  }
  const bytes = Buffer.from(written.subarray(0, used));
  for (let t = 0; t < i; t++) {
    const bom = end[t] - start[t] >= 3 && bytes[start[t]] === 0xef && bytes[start[t] + 1] === 0xbb && bytes[start[t] + 2] === 0xbf;
    isText[t] = validUtf8(bytes, start[t], end[t]) && !bom ? 1 : 0;
    let slot = fnv1a(bytes, start[t], end[t]) & mask;
    while (slots[slot] !== -1) slot = (slot + 1) & mask;
    slots[slot] = t;
  }
  return {
    find(key, from, to, text) {
      for (let slot = fnv1a(key, from, to) & mask; slots[slot] !== -1; slot = (slot + 1) & mask) {
        const t = slots[slot];
        if (end[t] - start[t] === to - from && isText[t] === (text ? 1 : 0) && sameBytes(bytes, start[t], key, from, to - from)) return rankOf[t];
      }
      return NONE;
    },
  };
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
/** The value of each base64 digit's byte ('=' and any other byte: 0, as padding adds nothing). */
const BASE64 = new Uint8Array(256);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((digit, value) => (BASE64[digit.charCodeAt(0)] = value));

/** Writes the bytes of the base64 text in[from, to) (padded to whole quads, as the data file's) at out[at]; answers where they end. */
function decodeBase64(input: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  for (let q = from; q + 3 < to; q += 4) {
    const bits = (BASE64[input[q]] << 18) | (BASE64[input[q + 1]] << 12) | (BASE64[input[q + 2]] << 6) | BASE64[input[q + 3]];
    out[at++] = bits >>> 16;
    if (input[q + 2] !== 0x3d) out[at++] = (bits >>> 8) & 0xff;
    if (input[q + 3] !== 0x3d) out[at++] = bits & 0xff;
  }
  return at;
}

/** Whether bytes[from, to) are valid UTF-8: no overlong form, surrogate or code point beyond U+10FFFF. */
function validUtf8(bytes: Uint8Array, from: number, to: number): boolean {
  let i = from;
  while (i < to) {
    const first = bytes[i];
    let size: number;
    let point: number;
    if (first <= 0x7f) {
      i++;
      continue;
    } else if ((first & 0xe0) === 0xc0) {
      if (first <= 0xc1) return false;
      [size, point] = [2, first & 0x1f];
    } else if ((first & 0xf0) === 0xe0) [size, point] = [3, first & 0x0f];
    else if ((first & 0xf8) === 0xf0) {
      if (first > 0xf4) return false;
      [size, point] = [4, first & 0x07];
    } else return false;
    if (i + size > to) return false;
    for (let j = 1; j < size; j++) {
      const next = bytes[i + j];
      if ((next & 0xc0) !== 0x80) return false;
      point = (point << 6) | (next & 0x3f);
    }
    if ((size === 3 && point < 0x800) || (size === 4 && point < 0x10000)) return false;
    if ((point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    i += size;
  }
  return true;
}
