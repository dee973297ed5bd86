import { countTokens as packageCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import t from 'tap';
import { O200K_SPLIT_SOURCE, byteSplitter, utf8Length } from '../../src/mcp/split.js';
import { loadTokenCounter } from '../../src/mcp/tokens.js';
import { buildDemoData } from '../../src/store/demo-data.js';

// The hand scan of the split pattern (src/mcp/split.ts) against the pattern itself: every
// piece must end where the library's pattern ends it, on generated texts that mix each kind
// of character the pattern tells apart (ASCII and beyond), and on the API's own data; and the
// counter built on it counts as the library does.

/** Where each piece ends in the text's UTF-8, by the library's pattern itself. */
function patternEnds(text: string): number[] {
  let end = 0;
  return [...text.matchAll(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags))].map((m) => (end += utf8Length(m[0], 0, m[0].length)));
}

const encoder = new TextEncoder();

/** Where each piece ends in the text's UTF-8, by a splitter. */
function scanEnds(split: ReturnType<typeof byteSplitter>, text: string): number[] {
  const bytes = new Uint8Array(text.length * 3);
  const ends: number[] = [];
  split(text, bytes, encoder.encodeInto(text, bytes).written, (_from, to) => ends.push(to));
  return ends;
}

/** Pieces of text that the pattern's classes tell apart: letters, digits, spaces, breaks, punctuation, contractions, each in ASCII and beyond, and lone surrogates. */
const ALPHABET = [
  'a', 'z', 'Q', 'Z', 'Id', 'Name', 'HTTP', 'aB', '0', '9', '1234', '12',
  ' ', '  ', '\t', '\v', '\f', '\n', '\r\n', '\r', ' \n ',
  "'", "'s", "'S", "'t", "'re", "'VE", "'ll", "'Ll", "'m", "'d", "'x",
  '"', '{', '}', '[', ']', ':', ',', '/', '//', '.', '-', '_', '\\', '\u0000', '\u001f', '\u007f', '":"', '",\n',
  'é', 'É', 'ß', 'ſ', 'ǅ', 'ʰ', '中', '日本', '😀', '\u0301', 'e\u0301', '٣', '½', '—', '…', '\u00a0', '\u2028', '\u3000', '\u200b', '\ufeff',
  '\ud800', '\udc00',
];

/** A small seeded generator (mulberry32), so that a failure repeats. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function generated(count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    // Some texts ASCII alone, as the API's answers nearly are; the rest from the whole alphabet.
    const ascii = next() < 0.5;
    const alphabet = ascii ? ALPHABET.filter((piece) => /^[\x00-\x7f]*$/.test(piece)) : ALPHABET;
    return Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  });
}

t.test('the scan is written for the library\'s pattern', async (t) => {
  t.equal(O200K_TOKEN_SPLIT_REGEX.source, O200K_SPLIT_SOURCE, 'the same source: else the pattern is used alone');
  t.equal(O200K_TOKEN_SPLIT_REGEX.flags, 'gu');
});

t.test('every piece ends where the pattern ends it', async (t) => {
  const split = byteSplitter(O200K_TOKEN_SPLIT_REGEX);
  const texts = [
    ...generated(20_000, 1),
    JSON.stringify(buildDemoData()),
    'He said "it\'s fine" — and we\'LL see.\r\n\r\n  Total:\t1 234 567,89 kr\n',
    '', ' ', '\n', '   ', '  \n', 'a', "'", "x'", "X'S", '1', '12345678',
  ];
  let differing = 0;
  for (const text of texts) {
    const expected = patternEnds(text);
    const found = scanEnds(split, text);
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      differing++;
      if (differing <= 5) t.fail(`${JSON.stringify(text)}: pieces end at ${found.join(',')}, the pattern's at ${expected.join(',')}`);
    }
  }
  t.equal(differing, 0, `${texts.length} texts split as the pattern splits them`);
});

t.test('a pattern the scan was not written for is used as it is', async (t) => {
  t.strictSame(scanEnds(byteSplitter(/\d+|\D/gu), 'ab12é'), [1, 2, 4, 6]);
});

t.test('UTF-8 lengths are TextEncoder\'s, a lone surrogate as U+FFFD', async (t) => {
  for (const text of ['a', 'é', '中', '😀', '\ud800', '\udc00', 'a\ud800b', '😀\ud83d']) {
    t.equal(utf8Length(text, 0, text.length), encoder.encode(text).length, JSON.stringify(text));
  }
});

t.test('the counter counts as gpt-tokenizer does', async (t) => {
  const count = await loadTokenCounter();
  const texts = [...generated(2_000, 2), JSON.stringify(buildDemoData())];
  const differing = texts.filter((text) => count(text) !== packageCount(text, { disallowedSpecial: new Set() }));
  t.strictSame(differing.slice(0, 5), [], `${texts.length} texts, every count the library's`);
});
