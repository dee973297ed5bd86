// Reading the contract for the tests of test/contract: the parsed file, its local `$ref`s,
// its operations (path-level parameters merged in) and a few comparisons they share.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type Obj = Record<string, any>;

const contractUrl = new URL('../../openapi/openapi.yaml', import.meta.url);
export const contract: Obj = parse(readFileSync(contractUrl, 'utf8')) as Obj;

/** Looks up a local JSON pointer (`#/components/schemas/X`) in the contract. */
export function pointer(ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: unknown = contract;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in (node as Obj))) {
      throw new Error(`$ref does not resolve: ${ref}`);
    }
    node = (node as Obj)[key];
  }
  return node;
}

/**
 * Follows `$ref`s until a node without one is reached. A schema whose type list admits null
 * (`type: [integer, 'null']`) reads as the service document writes it: its one type, and
 * `nullable` ("nullable int").
 */
export function deref<T = Obj>(node: unknown): T {
  const seen = new Set<string>();
  let current = node;
  while (current !== null && typeof current === 'object' && typeof (current as Obj).$ref === 'string') {
    const ref = (current as Obj).$ref as string;
    if (seen.has(ref)) throw new Error(`$ref cycle at ${ref}`);
    seen.add(ref);
    current = pointer(ref);
  }
  const types = (current as Obj | null)?.type;
  if (!Array.isArray(types)) return current as T;
  const [type, ...others] = types.filter((t: unknown) => t !== 'null');
  if (others.length > 0) throw new Error(`a type list of more than one type and null: ${JSON.stringify(types)}`);
  return { ...(current as Obj), type, nullable: types.includes('null') } as T;
}

/** Every key of every object anywhere in `node`. */
export function allKeys(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(allKeys);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node as Obj).flatMap(([key, value]) => [key, ...allKeys(value)]);
}

/** Every `$ref` string anywhere in the contract. */
export function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) allRefs(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Obj)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else allRefs(value, out);
    }
  }
  return out;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  op: Obj;
  params: Obj[]; // resolved, path-level merged with operation-level
}

/** Every operation of the contract, its parameters resolved. */
function contractOperations(): ContractOperation[] {
  const out: ContractOperation[] = [];
  for (const [path, rawItem] of Object.entries((contract.paths ?? {}) as Obj)) {
    const item = deref(rawItem);
    const pathParams: Obj[] = (item.parameters ?? []).map((p: unknown) => deref(p));
    for (const method of HTTP_METHODS) {
      const op = item[method] as Obj | undefined;
      if (!op) continue;
      const opParams: Obj[] = (op.parameters ?? []).map((p: unknown) => deref(p));
      const merged = new Map<string, Obj>();
      for (const p of [...pathParams, ...opParams]) merged.set(`${p.in}:${p.name}`, p);
      out.push({ operationId: op.operationId, method, path, op, params: [...merged.values()] });
    }
  }
  return out;
}

export const ops = contractOperations();
export const opById = new Map(ops.map((o) => [o.operationId, o]));

/** The application/json schema of a response or request body, resolved. */
export function jsonSchemaOf(responseOrBody: unknown): Obj | undefined {
  const resolved = deref(responseOrBody);
  const schema = resolved?.content?.['application/json']?.schema;
  return schema === undefined ? undefined : deref(schema);
}

export function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

/** The field names a transcribed object has and the schema lacks, and the other way round. */
export function fieldSetDiff(schema: Obj, fields: Record<string, string>): { missing: string[]; extra: string[] } {
  const actual = new Set(Object.keys(schema.properties ?? {}));
  const expected = new Set(Object.keys(fields));
  return {
    missing: sorted([...expected].filter((f) => !actual.has(f))),
    extra: sorted([...actual].filter((f) => !expected.has(f))),
  };
}

export function isRequired(schema: Obj, field: string): boolean {
  return Array.isArray(schema.required) && schema.required.includes(field);
}

/** Every schema (and sub-schema) of the contract, with where it is. */
export function allSchemas(node: unknown, where: string, out: [string, Obj][] = []): [string, Obj][] {
  if (Array.isArray(node)) node.forEach((item, i) => allSchemas(item, `${where}[${i}]`, out));
  else if (node !== null && typeof node === 'object') {
    const type = (node as Obj).type;
    if (typeof type === 'string' || Array.isArray(type)) out.push([where, node as Obj]);
    for (const [key, value] of Object.entries(node as Obj)) allSchemas(value, `${where}.${key}`, out);
  }
  return out;
}

