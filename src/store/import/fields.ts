/**
 * A small typed field validator for the import file. Each collection declares a shape
 * (field name → Field); `parseObject` checks an item against it, records every problem
 * with its path, and returns the item normalised (guids lower-case, dates as ISO UTC,
 * absent optional fields as null). The shape also gives the item's TypeScript type, so
 * the checks and the writers cannot disagree about field names.
 */

export type Path = (string | number)[];
export interface Issue {
  path: Path;
  message: string;
}

export const INVALID = Symbol('invalid');
export type Invalid = typeof INVALID;
type Parser<T> = (value: unknown, path: Path, issues: Issue[]) => T | Invalid;

export class Field<T, R extends boolean = false> {
  constructor(
    readonly required: R,
    readonly parse: Parser<T>,
  ) {}

  /** The field must be present and not null. */
  req(): Field<T, true> {
    return new Field(true, this.parse);
  }
}

export type Shape = Record<string, Field<any, boolean>>;
export type Infer<S extends Shape> = {
  [K in keyof S]: S[K] extends Field<infer T, true> ? T : S[K] extends Field<infer T, false> ? T | null : never;
};

function fail(issues: Issue[], path: Path, message: string): Invalid {
  issues.push({ path, message });
  return INVALID;
}

export function int(opts: { min?: number; max?: number; oneOf?: readonly number[] } = {}): Field<number> {
  return new Field(false, (v, path, issues) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return fail(issues, path, 'must be an integer');
    if (opts.oneOf && !opts.oneOf.includes(v)) return fail(issues, path, `must be one of ${opts.oneOf.join(', ')}`);
    if (opts.min !== undefined && v < opts.min) return fail(issues, path, `must be at least ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) return fail(issues, path, `must be at most ${opts.max}`);
    return v;
  });
}

/** An id: a positive integer. */
export const id = () => int({ min: 1, max: 2147483647 });

export function num(opts: { min?: number } = {}): Field<number> {
  return new Field(false, (v, path, issues) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail(issues, path, 'must be a number');
    if (opts.min !== undefined && v < opts.min) return fail(issues, path, `must be at least ${opts.min}`);
    return v;
  });
}

export function bool(): Field<boolean> {
  return new Field(false, (v, path, issues) =>
    typeof v === 'boolean' ? v : fail(issues, path, 'must be true or false'),
  );
}

export function str(
  opts: { nonEmpty?: boolean; oneOf?: readonly string[]; pattern?: RegExp; patternMessage?: string } = {},
): Field<string> {
  return new Field(false, (v, path, issues) => {
    if (typeof v !== 'string') return fail(issues, path, 'must be a string');
    if (opts.nonEmpty && v.trim() === '') return fail(issues, path, 'must not be empty');
    if (opts.oneOf && !opts.oneOf.includes(v)) return fail(issues, path, `must be one of ${opts.oneOf.join(', ')}`);
    if (opts.pattern && !opts.pattern.test(v)) return fail(issues, path, opts.patternMessage ?? `must match ${opts.pattern}`);
    return v;
  });
}

export const color = () => str({ pattern: /^#[0-9a-fA-F]{6}$/, patternMessage: 'must be a color #rrggbb' });

/** An absolute http(s) URL. */
export function url(): Field<string> {
  return new Field(false, (v, path, issues) => {
    if (typeof v !== 'string') return fail(issues, path, 'must be a string');
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      return fail(issues, path, 'must be an absolute http(s) URL');
    }
    return parsed.protocol === 'http:' || parsed.protocol === 'https:'
      ? v
      : fail(issues, path, 'must be an absolute http(s) URL');
  });
}

/** A regular expression source that compiles. */
export function regex(): Field<string> {
  return new Field(false, (v, path, issues) => {
    if (typeof v !== 'string') return fail(issues, path, 'must be a string');
    try {
      new RegExp(v);
      return v;
    } catch {
      return fail(issues, path, 'must be a valid regular expression');
    }
  });
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A guid, stored lower-case so references match whatever case the file used. */
export function guid(): Field<string> {
  return new Field(false, (v, path, issues) =>
    typeof v === 'string' && GUID.test(v) ? v.toLowerCase() : fail(issues, path, 'must be a guid'),
  );
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;

/** An ISO 8601 date-time with a time zone (Z or ±hh:mm), stored as ISO UTC. */
export function dateTime(): Field<string> {
  return new Field(false, (v, path, issues) => {
    const m = typeof v === 'string' ? DATE_TIME.exec(v) : null;
    if (!m) return fail(issues, path, 'must be a date-time');
    const [year, month, day, hour, minute, second] = m.slice(1).map((part) => Number(part ?? 0));
    // Date() silently rolls 2026-02-30 over into March; refuse impossible dates instead.
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
      return fail(issues, path, 'must be a date-time');
    }
    return new Date(v as string).toISOString();
  });
}

export function timespan(): Field<string> {
  return str({
    pattern: /^(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d$/,
    patternMessage: 'must be a timespan hh:mm:ss',
  });
}

/** An array of `item`; `unique` refuses repeated values (they would collide in link tables). */
export function list<T>(
  item: Field<T, boolean>,
  opts: { unique?: boolean; uniqueBy?: (value: T) => unknown; minItems?: number } = {},
): Field<T[]> {
  return new Field(false, (v, path, issues) => {
    if (!Array.isArray(v)) return fail(issues, path, 'must be an array');
    if (opts.minItems !== undefined && v.length < opts.minItems) {
      return fail(issues, path, `must have at least ${opts.minItems} item(s)`);
    }
    const out: T[] = [];
    const seen = new Map<unknown, number>();
    let ok = true;
    v.forEach((raw, index) => {
      const itemPath = [...path, index];
      if (raw === null || raw === undefined) {
        fail(issues, itemPath, 'must not be null');
        ok = false;
        return;
      }
      const parsed = item.parse(raw, itemPath, issues);
      if (parsed === INVALID) {
        ok = false;
        return;
      }
      const key = opts.uniqueBy ? opts.uniqueBy(parsed) : opts.unique ? parsed : undefined;
      if (key !== undefined) {
        const first = seen.get(key);
        if (first !== undefined) {
          fail(issues, itemPath, `repeats item ${first}`);
          ok = false;
        } else seen.set(key, index);
      }
      out.push(parsed);
    });
    return ok ? out : INVALID;
  });
}

/** A list of ids for a link table. */
export const ids = () => list(id(), { unique: true });

export function obj<S extends Shape>(shape: S): Field<Infer<S>> {
  return new Field(false, (v, path, issues) => parseObject(shape, v, path, issues));
}

export function parseObject<S extends Shape>(shape: S, v: unknown, path: Path, issues: Issue[]): Infer<S> | Invalid {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, path, 'must be an object');
  const raw = v as Record<string, unknown>;
  let ok = true;
  for (const key of Object.keys(raw)) {
    if (Object.hasOwn(shape, key)) continue;
    // Field names are case-sensitive; point at the intended one when only the case differs.
    const near = Object.keys(shape).find((name) => name.toLowerCase() === key.toLowerCase());
    fail(issues, [...path, key], near ? `is not a known field (did you mean ${near}?)` : 'is not a known field');
    ok = false;
  }
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const value = raw[key];
    if (value === undefined || value === null) {
      if (field.required) {
        fail(issues, [...path, key], 'is required');
        ok = false;
      }
      out[key] = null;
      continue;
    }
    const parsed = field.parse(value, [...path, key], issues);
    if (parsed === INVALID) ok = false;
    else out[key] = parsed;
  }
  return ok ? (out as Infer<S>) : INVALID;
}

/** `Values[1].Value` */
export function formatPath(path: Path): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}
