import { countTokens as packageCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import t from 'tap';
import { O200K_SPLIT_SOURCE, splitter } from '../../src/mcp/split.js';
import { loadTokenCounter } from '../../src/mcp/tokens.js';
import { buildDemoData } from '../../src/store/demo-data.js';

// The hand scan of the split pattern (src/mcp/split.ts) against the pattern itself: every
// piece must end where the library's pattern ends it, on generated texts that mix each kind
// of character the pattern tells apart (ASCII and beyond), and on the API's own data.

/** Every piece's end, by the library's pattern. */
const patternEnds = (text: string) => [...text.matchAll(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags))].map((m) => m.index + m[0].length);

function scanEnds(end: (text: string, from: number) => number, text: string): number[] {
  const ends: number[] = [];
  for (let from = 0; from < text.length; from = ends[ends.length - 1]) ends.push(end(text, from));
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
  const end = splitter(O200K_TOKEN_SPLIT_REGEX);
  const texts = [
    ...generated(20_000, 1),
    JSON.stringify(buildDemoData()),
    'He said "it\'s fine" — and we\'LL see.\r\n\r\n  Total:\t1 234 567,89 kr\n',
    '', ' ', '\n', '   ', '  \n', 'a', "'", "x'", "X'S", '1', '12345678',
  ];
  let differing = 0;
  for (const text of texts) {
    const expected = patternEnds(text);
    const found = scanEnds(end, text);
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      differing++;
      if (differing <= 5) t.fail(`${JSON.stringify(text)}: pieces end at ${found.join(',')}, the pattern's at ${expected.join(',')}`);
    }
  }
  t.equal(differing, 0, `${texts.length} texts split as the pattern splits them`);
});

t.test('a pattern the scan was not written for is used as it is', async (t) => {
  const end = splitter(/\d+|\D/gu);
  t.strictSame(scanEnds(end, 'ab12c'), [1, 2, 4, 5]);
});

t.test('the counter counts as gpt-tokenizer does', async (t) => {
  const count = await loadTokenCounter();
  const texts = [...generated(2_000, 2), JSON.stringify(buildDemoData())];
  const differing = texts.filter((text) => count(text) !== packageCount(text, { disallowedSpecial: new Set() }));
  t.strictSame(differing.slice(0, 5), [], `${texts.length} texts, every count the library's`);
});
