/**
 * Where the o200k_base split pattern's next piece ends (docs/decisions.md, "The MCP server").
 * The pattern, with its Unicode classes, was most of the time a count took. An API's answers
 * are nearly all ASCII, and for ASCII the pattern's alternatives reduce to a few runs of one
 * class each, scanned here by hand; wherever the scan would read a character beyond ASCII,
 * that piece is left to the pattern itself. So every piece ends where the pattern ends it
 * (test/mcp/split.test.ts compares the two on generated and real texts), and a pattern that
 * is not the one this scan was written for is used alone.
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

/** The class of text[at] (nothing is read past the end: such a read is slow). */
const classAt = (text: string, at: number): number => {
  if (at >= text.length) return END;
  const code = text.charCodeAt(at);
  return code < 128 ? CLASS[code] : OTHER;
};

/** text[at]'s code, 0 past the end. */
const codeAt = (text: string, at: number): number => (at < text.length ? text.charCodeAt(at) : 0);

/** A piece the scan leaves to the pattern. */
const UNSURE = -1;

/** After a run of letters ending at `at`: past the contraction that follows, if one does. */
function contraction(text: string, at: number): number {
  if (codeAt(text, at) !== 0x27) return at;
  const a = codeAt(text, at + 1) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return at + 2; // 's 'd 'm 't
  const b = codeAt(text, at + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return at + 3; // 'll 've 're
  return at;
}

/** The end of the piece that begins at `from` (< text.length), or UNSURE where ASCII does not decide it. */
function asciiEnd(text: string, from: number): number {
  const first = classAt(text, from);
  if (first === OTHER) return UNSURE;
  // 1 and 2: letters, after one character that is no line break, letter or digit.
  const letters = first === UPPER || first === LOWER ? from : first === BLANK || first === PUNCTUATION ? from + 1 : -1;
  if (letters !== -1) {
    let at = letters;
    let c = classAt(text, at);
    while (c === UPPER) c = classAt(text, ++at);
    while (c === LOWER) c = classAt(text, ++at);
    // A character beyond ASCII where a run stopped may be a letter.
    if (c === OTHER) return UNSURE;
    if (at > letters) return contraction(text, at);
    // No letter after it: the leading character begins another kind of piece, below.
  }
  if (first === DIGIT) {
    let at = from + 1;
    let c = classAt(text, at);
    while (c === DIGIT && at < from + 3) c = classAt(text, ++at);
    // A digit beyond ASCII would continue the run.
    return c === OTHER && at < from + 3 ? UNSURE : at;
  }
  // 4: punctuation, after an optional space, then line breaks.
  const punctuation = first === PUNCTUATION ? from : codeAt(text, from) === 0x20 && classAt(text, from + 1) === PUNCTUATION ? from + 1 : -1;
  if (punctuation !== -1) {
    let at = punctuation;
    let c = classAt(text, at);
    while (c === PUNCTUATION) c = classAt(text, ++at);
    if (c === OTHER) return UNSURE;
    for (let code = codeAt(text, at); code === 0x0a || code === 0x0d || code === 0x2f; code = codeAt(text, ++at));
    return at;
  }
  if (first !== BLANK && first !== BREAK) return UNSURE;
  // 5, 6, 7: a run of spaces.
  let end = from;
  let lastBreak = -1;
  let c = first;
  for (; c === BLANK || c === BREAK; c = classAt(text, ++end)) if (c === BREAK) lastBreak = end;
  if (c === OTHER) return UNSURE;
  if (lastBreak !== -1) return lastBreak + 1;
  if (end === text.length) return end;
  return end - from >= 2 ? end - 1 : end;
}

/**
 * A splitter of texts into the pieces of `pattern` (the library's split pattern): `end(text,
 * from)` is where the piece that begins at `from` ends. The pattern matches at every position
 * (anything that is no letter, digit or space is punctuation), so each piece begins where the
 * last one ended.
 */
export function splitter(pattern: RegExp): (text: string, from: number) => number {
  const sticky = new RegExp(pattern.source, pattern.flags.replace('g', '') + 'y');
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g');
  const byPattern = (text: string, from: number): number => {
    sticky.lastIndex = from;
    if (sticky.test(text)) return sticky.lastIndex;
    // Not reached for the library's pattern; as a search for the next match would end it.
    global.lastIndex = from;
    return global.test(text) ? global.lastIndex : text.length;
  };
  if (pattern.source !== O200K_SPLIT_SOURCE || pattern.flags.replace('g', '') !== 'u') return byPattern;
  return (text, from) => {
    const end = asciiEnd(text, from);
    return end === UNSURE ? byPattern(text, from) : end;
  };
}
