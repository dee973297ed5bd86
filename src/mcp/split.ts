/**
 * Where the o200k_base split pattern's next piece ends (docs/decisions.md, "The MCP server").
 * The pattern, with its Unicode classes, was most of the time a count took. An API's answers
 * are nearly all ASCII, and for ASCII the pattern's alternatives reduce to a few runs of one
 * class each, scanned here by hand over the text's UTF-8 bytes (a typed array reads faster
 * than a string, above all a string made by concatenation, as serializers make them);
 * wherever the scan would read a byte beyond ASCII, that piece is left to the pattern itself,
 * on the text. So every piece ends where the pattern ends it (test/mcp/split.test.ts compares
 * the two on generated and real texts), and a pattern that is not the one this scan was
 * written for is used alone.
 *
 * The pattern, alternative by alternative, and what each is for ASCII text:
 * 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` + contraction:
 *    one optional character that is no line break, letter or digit, capitals, then at least
 *    one small letter, then an optional `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll` or `'d`;
 * 2. the same with at least one capital and any small letters: reached only when 1 found no
 *    small letter, so capitals alone (and the contraction);
 * 3. `\p{N}{1,3}`: one to three digits;
 * 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`: an optional space, punctuation (anything that is no space,
 *    letter or digit), then line breaks and slashes;
 * 5. `\s*[\r\n]+`: spaces up to and including the last line break of their run;
 * 6. `\s+(?!\S)`: a run of spaces at the end of the text, or all of a longer run but its last;
 * 7. `\s+`: a run of spaces.
 */

/** The pattern the scan reproduces (gpt-tokenizer's O200K_TOKEN_SPLIT_REGEX, flags `gu`). */
export const O200K_SPLIT_SOURCE =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** a space that is no line break: space, tab, vertical tab, form feed */
const BLANK = 4;
/** \r or \n */
const BREAK = 5;
const PUNCTUATION = 6;
/** beyond ASCII */
const OTHER = 0;
/** past the end of the text */
const END = 7;

const CLASS = new Uint8Array(128).fill(PUNCTUATION);
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = UPPER;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = LOWER;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = DIGIT;
for (const c of [0x09, 0x0b, 0x0c, 0x20]) CLASS[c] = BLANK;
CLASS[0x0a] = BREAK;
CLASS[0x0d] = BREAK;

/** The class of bytes[at] (nothing is read past the end). */
const classAt = (bytes: Uint8Array, at: number, end: number): number => {
  if (at >= end) return END;
  const byte = bytes[at];
  return byte < 128 ? CLASS[byte] : OTHER;
};

/** bytes[at], 0 past the end. */
const byteAt = (bytes: Uint8Array, at: number, end: number): number => (at < end ? bytes[at] : 0);

/** A piece the scan leaves to the pattern. */
const UNSURE = -1;

/** After a run of letters ending at `at`: past the contraction that follows, if one does. */
function contraction(bytes: Uint8Array, at: number, end: number): number {
  if (byteAt(bytes, at, end) !== 0x27) return at;
  const a = byteAt(bytes, at + 1, end) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return at + 2; // 's 'd 'm 't
  const b = byteAt(bytes, at + 2, end) | 0x20;
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return at + 3; // 'll 've 're
  return at;
}

/**
 * The end of the piece that begins at `from` in the UTF-8 `bytes` of a text, which end at
 * `end`; or UNSURE where ASCII does not decide it (the piece may hold a character beyond it).
 */
function asciiPieceEnd(bytes: Uint8Array, from: number, end: number): number {
  const first = classAt(bytes, from, end);
  if (first === OTHER) return UNSURE;
  // 1 and 2: letters, after one character that is no line break, letter or digit.
  const letters = first === UPPER || first === LOWER ? from : first === BLANK || first === PUNCTUATION ? from + 1 : -1;
  if (letters !== -1) {
    let at = letters;
    let c = classAt(bytes, at, end);
    while (c === UPPER) c = classAt(bytes, ++at, end);
    while (c === LOWER) c = classAt(bytes, ++at, end);
    // A character beyond ASCII where a run stopped may be a letter.
    if (c === OTHER) return UNSURE;
    if (at > letters) return contraction(bytes, at, end);
    // No letter after it: the leading character begins another kind of piece, below.
  }
  if (first === DIGIT) {
    let at = from + 1;
    let c = classAt(bytes, at, end);
    while (c === DIGIT && at < from + 3) c = classAt(bytes, ++at, end);
    // A digit beyond ASCII would continue the run.
    return c === OTHER && at < from + 3 ? UNSURE : at;
  }
  // 4: punctuation, after an optional space, then line breaks and slashes.
  const punctuation = first === PUNCTUATION ? from : bytes[from] === 0x20 && classAt(bytes, from + 1, end) === PUNCTUATION ? from + 1 : -1;
  if (punctuation !== -1) {
    let at = punctuation;
    let c = classAt(bytes, at, end);
    while (c === PUNCTUATION) c = classAt(bytes, ++at, end);
    if (c === OTHER) return UNSURE;
    for (let byte = byteAt(bytes, at, end); byte === 0x0a || byte === 0x0d || byte === 0x2f; byte = byteAt(bytes, ++at, end));
    return at;
  }
  // 5, 6, 7: a run of spaces (only a space or a line break is left here).
  let at = from;
  let lastBreak = -1;
  let c = first;
  for (; c === BLANK || c === BREAK; c = classAt(bytes, ++at, end)) if (c === BREAK) lastBreak = at;
  // A space beyond ASCII would continue the run.
  if (c === OTHER) return UNSURE;
  if (lastBreak !== -1) return lastBreak + 1;
  if (at === end) return at;
  return at - from >= 2 ? at - 1 : at;
}

/** Whether `pattern` is the one asciiPieceEnd reproduces. */
const isO200kSplit = (pattern: RegExp) => pattern.source === O200K_SPLIT_SOURCE && pattern.flags.replace('g', '') === 'u';

/**
 * `end(text, from)`: where the piece of `pattern` that begins at character `from` ends. The
 * pattern matches at every position (anything that is no letter, digit or space is
 * punctuation), so each piece begins where the last one ended.
 */
function patternSplitter(pattern: RegExp): (text: string, from: number) => number {
  const sticky = new RegExp(pattern.source, pattern.flags.replace('g', '') + 'y');
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g');
  return (text, from) => {
    sticky.lastIndex = from;
    if (sticky.test(text)) return sticky.lastIndex;
    // Not reached for the library's pattern; as a search for the next match would end it.
    global.lastIndex = from;
    return global.test(text) ? global.lastIndex : text.length;
  };
}

/** The UTF-8 length of text[from, to), as TextEncoder writes it (a lone surrogate as U+FFFD, 3 bytes). */
export const utf8Length = (text: string, from: number, to: number): number => Buffer.byteLength(text.slice(from, to));

/** One piece: bytes [from, to) of the text's UTF-8; `wellFormed` false when it holds a lone surrogate (written as U+FFFD). */
export type PieceVisitor = (from: number, to: number, wellFormed: boolean) => void;

/**
 * A splitter by `pattern` (the library's split pattern) of a text whose UTF-8 bytes are
 * `bytes[0, end)`: it visits each piece in order, by its bytes.
 */
export function byteSplitter(pattern: RegExp): (text: string, bytes: Uint8Array, end: number, visit: PieceVisitor) => void {
  const byPattern = patternSplitter(pattern);
  const scan = isO200kSplit(pattern);
  return (text, bytes, end, visit) => {
    // A piece the scan ends is ASCII, a character a byte: `char` is where the piece at `at` begins in the text.
    let char = 0;
    for (let at = 0; at < end; ) {
      let to = scan ? asciiPieceEnd(bytes, at, end) : UNSURE;
      if (to === UNSURE) {
        const charEnd = byPattern(text, char);
        to = at + utf8Length(text, char, charEnd);
        visit(at, to, wellFormed(text, char, charEnd));
        char = charEnd;
      } else {
        visit(at, to, true);
        char += to - at;
      }
      at = to;
    }
  };
}

/** Whether text[from, to) has no lone surrogate. */
function wellFormed(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      if (!(i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00)) return false;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false;
  }
  return true;
}
