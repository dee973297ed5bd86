import type { FieldError } from './errors.js';
import { displayName, excerpt } from './errors.js';

/** The parts of an Ajv error this mapping reads. */
export interface AjvErrorLike {
  keyword: string;
  instancePath: string;
  params: Record<string, any>;
  message?: string;
  data?: unknown;
  parentSchema?: Record<string, unknown>;
}

/** "/Customer/Email" → "Customer.Email", "/Resources/0/Id" → "Resources[0].Id". */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let path = '';
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) path += `[${part}]`;
    else path += path ? `.${part}` : part;
  }
  return path;
}

const typeNames: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  string: 'a string',
  array: 'a list',
  object: 'an object',
};

/** FluentValidation's comparison validators: ErrorCode and wording, by Ajv keyword. */
const comparisons: Record<string, [code: string, words: string]> = {
  minimum: ['GreaterThanOrEqual', 'greater than or equal to'],
  exclusiveMinimum: ['GreaterThan', 'greater than'],
  maximum: ['LessThanOrEqual', 'less than or equal to'],
  exclusiveMaximum: ['LessThan', 'less than'],
};

function describe(error: AjvErrorLike, name: string, field: string): { code: string; message: string } {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return { code: 'NotEmpty', message: `'${name}' must not be empty.` };
    case 'minLength':
      return p.limit <= 1
        ? { code: 'NotEmpty', message: `'${name}' must not be empty.` }
        : { code: 'Length', message: `'${name}' must be at least ${p.limit} characters.` };
    case 'maxLength':
      return {
        code: 'Length',
        message: `The length of '${name}' must be ${p.limit} characters or fewer.`,
      };
    case 'minItems':
      return p.limit <= 1
        ? { code: 'NotEmpty', message: `'${name}' must not be empty.` }
        : { code: 'Length', message: `'${name}' must have at least ${p.limit} items.` };
    case 'maxItems':
      return { code: 'Length', message: `'${name}' must have ${p.limit} items or fewer.` };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const [code, words] = comparisons[error.keyword]!;
      return { code, message: `'${name}' must be ${words} '${p.limit}'.` };
    }
    case 'enum':
      return {
        code: 'Enum',
        message: `'${name}' must be one of: ${(p.allowedValues as unknown[]).join(', ')}.`,
      };
    case 'format':
      return p.format === 'email'
        ? { code: 'Email', message: `'${name}' is not a valid email address.` }
        : { code: 'RegularExpression', message: `'${name}' is not a valid ${p.format}.` };
    case 'pattern':
      return { code: 'RegularExpression', message: `'${name}' is not in the correct format.` };
    case 'type':
      if (error.data === null) return { code: 'NotNull', message: `'${name}' must not be null.` };
      return {
        code: 'InvalidType',
        message: `'${name}' must be ${typeNames[String(p.type).split(',')[0]] ?? p.type}.`,
      };
    case 'additionalProperties': {
      // The field as written: its case may be the mistake.
      const key = excerpt(String(p.additionalProperty), 50);
      const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
      return {
        code: 'Invalid',
        message: near ? `'${key}' is not a known field; did you mean '${near}'?` : `'${key}' is not a known field.`,
      };
    }
    default:
      return { code: 'Invalid', message: `'${name}' ${error.message ?? 'is invalid'}.` };
  }
}

/**
 * Maps Ajv errors to ServiceStack-style field errors: a FieldName path, an ErrorCode of
 * FluentValidation's vocabulary, and a message. A schema's `x-error-messages` (keyword →
 * message) overrides the message of that keyword's rule (the contract's wording for it).
 * Duplicates are dropped, and so are the items' errors of a list whose size rule failed.
 */
export function toFieldErrors(errors: AjvErrorLike[], rootName = 'Body'): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  // A list whose size rule fails is refused as a whole: its items get no error of their own.
  const sized = errors.filter((e) => e.keyword === 'maxItems' || e.keyword === 'minItems').map((e) => `${e.instancePath}/`);
  const inSizedList = (error: AjvErrorLike) => sized.some((list) => error.instancePath.startsWith(list));
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    if (sized.length > 0 && inSizedList(error)) continue;
    const child =
      error.keyword === 'required'
        ? error.params.missingProperty
        : error.keyword === 'additionalProperties'
          ? error.params.additionalProperty
          : undefined;
    const field = fieldPath(error.instancePath, child);
    const leaf = field.replace(/\[\d+\]$/, '').split('.').pop() || rootName;
    const { code, message } = describe(error, displayName(leaf), field);
    const custom = (error.parentSchema?.['x-error-messages'] as Record<string, unknown> | undefined)?.[error.keyword];
    const entry: FieldError = {
      ErrorCode: code,
      FieldName: field || rootName,
      Message: typeof custom === 'string' ? custom : message,
    };
    const key = `${entry.FieldName}\u0000${entry.ErrorCode}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(entry);
  }
  return out;
}
