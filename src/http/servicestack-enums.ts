// Enums read as ServiceStack reads a C# enum: by name in any case, or by number
// (docs/decisions.md, "Wire format"). The contract says which schemas are C# enums and gives their
// members; this module turns that into the member a request's value names.
import { contract } from './contract.js';

/** The part of a schema that names enum members. */
export interface EnumSchema {
  type?: string | string[];
  enum?: unknown[];
  'x-enum-varnames'?: unknown;
}

let namedEnums: Set<string> | undefined;

/**
 * The member lists of the contract's named string enums (`components/schemas` with an
 * `enum`, such as ChangeType): the service's C# enums. Inline string enums (the `format`
 * parameter, a message template's `Language`) are constrained strings in the service, not
 * C# enums, so they take neither other cases nor numbers.
 */
function serviceEnums(): Set<string> {
  if (namedEnums) return namedEnums;
  const schemas = (contract().document.components?.schemas ?? {}) as Record<string, EnumSchema>;
  namedEnums = new Set(
    Object.values(schemas)
      .filter((s) => s.type === 'string' && Array.isArray(s.enum))
      .map((s) => JSON.stringify(s.enum)),
  );
  return namedEnums;
}

const sameName = (name: unknown, text: string) => typeof name === 'string' && name.toLowerCase() === text.toLowerCase();

const INDEX_TEXT = /^\d{1,9}$/;

/**
 * The enum member `value` names, or undefined when it names none (validation then reports
 * the value as sent):
 * - a string C# enum takes its member names in any case, and a number (or its plain decimal
 *   text) as the member at that position counted from 0. That is C#'s numbering of an enum
 *   whose members carry no explicit values, and the contract's numbering of the one
 *   such enum a request carries: ChangeType, "Increase = 0, Decrease = 1", listed in that
 *   order in the contract. (BookingStatusEnum counts from 1 but is only ever answered;
 *   test/http/servicestack-values.test.ts checks that every enum a request can carry numbers
 *   from 0 where its description gives numbers.)
 * - an integer enum takes the names of its `x-enum-varnames` list (the C# member names,
 *   position by position), in any case.
 */
export function enumMember(value: unknown, schema: EnumSchema): unknown {
  const members = schema.enum;
  if (!Array.isArray(members)) return undefined;
  const names = schema['x-enum-varnames'];
  if (Array.isArray(names) && typeof value === 'string' && names.length === members.length) {
    const index = names.findIndex((name) => sameName(name, value));
    if (index >= 0) return members[index];
  }
  if (schema.type !== 'string' || !serviceEnums().has(JSON.stringify(members))) return undefined;
  if (typeof value === 'string') {
    const named = members.find((member) => member === value) ?? members.find((member) => sameName(member, value));
    if (named !== undefined) return named;
    if (INDEX_TEXT.test(value)) return members[Number(value)];
  }
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return members[value];
  return undefined;
}
