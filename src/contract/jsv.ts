// ServiceStack's JSV ("TypeSerializer") text format, as ServiceStack.Text writes it:
// `{Key:Value,Key2:Value2}`, `[a,b]`, strings bare unless they hold one of
// `" : , { } [ ] \r \n`, in which case they are wrapped in `"` with inner `"` doubled
// (JsWriter.EscapeChars + StringExtensions.EncodeJsv). Whitespace is significant.

export class JsvParseError extends Error {
  override name = 'JsvParseError';
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
  }
}

/** What parseJsv returns: scalars stay strings; a schema coerces them later. */
export type JsvValue = string | null | JsvValue[] | { [key: string]: JsvValue };

/** Deeper input is refused rather than recursed into (the parser is recursive). */
export const JSV_MAX_DEPTH = 32;

const ESCAPE_CHARS = new Set(['"', ':', ',', '{', '}', '[', ']', '\r', '\n']);

function encodeString(s: string): string {
  // ServiceStack writes "" for an empty string so that it is not read back as null.
  if (s === '') return '""';
  for (const c of s) {
    if (ESCAPE_CHARS.has(c)) return `"${s.replaceAll('"', '""')}"`;
  }
  return s;
}

/** A scalar's JSV text, or undefined for values ServiceStack omits (null and the like). */
function scalarText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return encodeString(value);
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return undefined;
  }
}

export function toJsv(value: unknown): string {
  return write(value, new Set()) ?? '';
}

function write(value: unknown, ancestors: Set<object>): string | undefined {
  if (value === null || typeof value !== 'object') return scalarText(value);
  // ServiceStack writes dates bare (not quoted, although they hold `:`).
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (ancestors.has(value)) throw new TypeError('Converting circular structure to JSV');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return `[${value.map((item) => write(item, ancestors) ?? '').join(',')}]`;
    }
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const text = write(member, ancestors);
      if (text !== undefined) members.push(`${encodeString(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * Reads JSV into nested objects and arrays of strings. An empty member (`{A:}`) is
 * omitted and an empty list item (`[a,,b]`) is null, as ServiceStack reads them.
 * Stricter than ServiceStack in one way: a bare value holding a character ServiceStack
 * would have quoted is an error, so that text which is not JSV (pretty-printed JSON,
 * prose in brackets) is refused instead of being misread.
 */
export function parseJsv(text: string): JsvValue {
  if (typeof text !== 'string') throw new JsvParseError('JSV input must be a string');
  const first = text[0];
  if (first !== '{' && first !== '[' && first !== '"') return text;
  const parser = new Parser(text);
  const value = first === '"' ? parser.quoted() : parser.value(0, '');
  if (parser.pos !== text.length) parser.fail('unexpected text after the value');
  return value;
}

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    const at = this.pos < this.s.length ? `'${this.s[this.pos]}' at position ${this.pos}` : 'end of input';
    throw new JsvParseError(`Invalid JSV: ${what} (${at})`, this.pos);
  }

  /** A value inside a container whose closing character is `closer`; null when empty. */
  value(depth: number, closer: string): JsvValue {
    const c = this.s[this.pos];
    if (c === undefined) this.fail('unexpected end of input');
    if (c === '{') return this.map(depth + 1);
    if (c === '[') return this.list(depth + 1);
    if (c === '"') return this.quoted();
    if (c === ',' || c === closer) return null;
    return this.bare(closer, false);
  }

  map(depth: number): { [key: string]: JsvValue } {
    if (depth > JSV_MAX_DEPTH) this.fail(`nesting deeper than ${JSV_MAX_DEPTH} levels`);
    const result: { [key: string]: JsvValue } = {};
    this.pos++;
    if (this.s[this.pos] === '}') {
      this.pos++;
      return result;
    }
    for (;;) {
      const key = this.s[this.pos] === '"' ? this.quoted() : this.bare(':', true);
      if (this.s[this.pos] !== ':') this.fail("expected ':' after a key");
      this.pos++;
      const member = this.value(depth, '}');
      // defineProperty, so that a key such as __proto__ stays an ordinary member.
      if (member !== null) Object.defineProperty(result, key, { value: member, enumerable: true, writable: true, configurable: true });
      const next = this.s[this.pos++];
      if (next === '}') return result;
      if (next !== ',') {
        this.pos--;
        this.fail("expected ',' or '}'");
      }
    }
  }

  list(depth: number): JsvValue[] {
    if (depth > JSV_MAX_DEPTH) this.fail(`nesting deeper than ${JSV_MAX_DEPTH} levels`);
    const result: JsvValue[] = [];
    this.pos++;
    if (this.s[this.pos] === ']') {
      this.pos++;
      return result;
    }
    for (;;) {
      result.push(this.value(depth, ']'));
      const next = this.s[this.pos++];
      if (next === ']') return result;
      if (next !== ',') {
        this.pos--;
        this.fail("expected ',' or ']'");
      }
    }
  }

  /** `"…"` with `""` standing for one quote. */
  quoted(): string {
    const s = this.s;
    let out = '';
    let from = this.pos + 1;
    for (;;) {
      const q = s.indexOf('"', from);
      if (q < 0) {
        this.pos = s.length;
        this.fail('unterminated quoted string');
      }
      if (s[q + 1] === '"') {
        out += s.slice(from, q + 1);
        from = q + 2;
        continue;
      }
      this.pos = q + 1;
      return out + s.slice(from, q);
    }
  }

  /** An unquoted token, ended by `,` or `end`; a key must not be empty. */
  bare(end: string, isKey: boolean): string {
    const s = this.s;
    const start = this.pos;
    for (; this.pos < s.length; this.pos++) {
      const c = s[this.pos]!;
      if (c === end || (c === ',' && !isKey)) break;
      // `:` may appear bare in values (ServiceStack writes dates that way), never in keys.
      if (ESCAPE_CHARS.has(c) && c !== ':') this.fail(isKey ? 'unexpected character in a key' : 'unexpected character in a value');
    }
    if (this.pos >= s.length) this.fail('unexpected end of input');
    if (isKey && this.pos === start) this.fail('empty key');
    return s.slice(start, this.pos);
  }
}
