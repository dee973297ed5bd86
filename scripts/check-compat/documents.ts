// The differences openapi-diff does not read, found by walking both contracts: parameters (it
// compares none), enum values, and the keywords its schema comparison ignores (format,
// pattern, nullable). Every operation the two contracts share is compared: its parameters,
// its JSON request body and the JSON body of each status both declare, each judged as
// compareSchemas judges its side. Operations and statuses removed are openapi-diff's to report.
import { compareSchemas, type Deref, type Direction, type Schema } from './schemas.js';

export type Document = { paths?: Record<string, unknown>; [key: string]: unknown };

export interface Finding {
  /** `request.parameter.remove`, `response.body.enum.add`, …: the part and the kind of change. */
  code: string;
  /** As openapi-diff's differences are placed: `DELETE /tags/{Id}, response 200 body`. */
  where: string;
  text: string;
  breaking: boolean;
}

type Parameter = { name: string; in: string; required?: boolean; schema?: unknown; content?: Record<string, { schema?: unknown }> };
type Body = { required?: boolean; content?: Record<string, { schema?: unknown }> };
type Operation = { parameters?: unknown[]; requestBody?: unknown; responses?: Record<string, unknown> };
type PathItem = Record<string, unknown> & { parameters?: unknown[] };

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows local `$ref`s (`#/components/…`), the only kind the contract uses. */
export function localRefs(document: Document): Deref {
  return (node) => {
    const followed = new Set<string>();
    while (node && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string') {
      const ref = (node as { $ref: string }).$ref;
      if (!ref.startsWith('#/')) throw new Error(`${ref}: only references inside the contract (#/…) are read`);
      if (followed.has(ref)) throw new Error(`${ref} refers to itself`);
      followed.add(ref);
      node = ref
        .slice(2)
        .split('/')
        .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((parent, key) => (parent as Record<string, unknown> | undefined)?.[key], document);
      if (node === undefined) throw new Error(`${ref} names nothing in the contract`);
    }
    return node as Schema | undefined;
  };
}

/** openapi-diff's matching: `/tags/{Id}` and `/tags/{TagId}` are one path. */
const normalized = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

function jsonSchema(body: Body | undefined): unknown {
  return body?.content?.['application/json']?.schema;
}

export function compareDocuments(released: Document, current: Document): Finding[] {
  const deref = { before: localRefs(released), after: localRefs(current) };
  const findings: Finding[] = [];
  const compare = (where: string, part: string, direction: Direction, before: unknown, after: unknown) => {
    for (const change of compareSchemas(before, after, direction, deref)) {
      findings.push({ code: `${part}.${change.kind}`, where, text: change.text, breaking: change.breaking });
    }
  };
  const add = (where: string, code: string, text: string, breaking: boolean) => findings.push({ code, where, text, breaking });

  const currentPaths = new Map(
    Object.entries(current.paths ?? {}).map(([path, item]) => [normalized(path), deref.after(item) as PathItem]),
  );
  for (const [path, rawItem] of Object.entries(released.paths ?? {})) {
    const [itemBefore, itemAfter] = [deref.before(rawItem) as PathItem, currentPaths.get(normalized(path))];
    if (!itemAfter) continue;
    for (const method of methods) {
      const [before, after] = [itemBefore[method] as Operation | undefined, itemAfter[method] as Operation | undefined];
      if (!before || !after) continue;
      const at = `${method.toUpperCase()} ${path}`;

      // Parameters compare as the properties of one object per place (path, query, header,
      // cookie), so a parameter removed, added or newly required reads as a field would.
      const [paramsBefore, paramsAfter] = [parameters(deref.before, itemBefore, before), parameters(deref.after, itemAfter, after)];
      for (const place of new Set([...paramsBefore.keys(), ...paramsAfter.keys()])) {
        const none = { type: 'object', properties: {} };
        const [placeBefore, placeAfter] = [paramsBefore.get(place) ?? none, paramsAfter.get(place) ?? none];
        compare(`${at}, ${place} parameters`, 'request.parameter', 'request', placeBefore, placeAfter);
      }

      const bodyBefore = deref.before(before.requestBody) as Body | undefined;
      const bodyAfter = deref.after(after.requestBody) as Body | undefined;
      const [schemaBefore, schemaAfter] = [jsonSchema(bodyBefore), jsonSchema(bodyAfter)];
      const request = `${at}, request body`;
      if (schemaBefore && !schemaAfter) add(request, 'request.body.remove', 'the body removed', true);
      else if (!schemaBefore && schemaAfter) {
        add(request, 'request.body.add', `the body added${bodyAfter?.required ? ', required' : ''}`, !!bodyAfter?.required);
      } else if (schemaBefore && schemaAfter) {
        if (!bodyBefore?.required && bodyAfter?.required) add(request, 'request.body.required', 'the body now required', true);
        compare(request, 'request.body', 'request', schemaBefore, schemaAfter);
      }

      for (const [status, rawResponse] of Object.entries(before.responses ?? {})) {
        if (!after.responses || !(status in after.responses)) continue;
        const where = `${at}, response ${status} body`;
        const responseBefore = jsonSchema(deref.before(rawResponse) as Body);
        const responseAfter = jsonSchema(deref.after(after.responses[status]) as Body);
        if (responseBefore && !responseAfter) add(where, 'response.body.remove', 'the body removed', true);
        else if (!responseBefore && responseAfter) add(where, 'response.body.add', 'the body added', false);
        else if (responseBefore && responseAfter) compare(where, 'response.body', 'response', responseBefore, responseAfter);
      }
    }
  }
  return findings;
}

/** The operation's parameters with its path's, as one object schema per place. */
function parameters(deref: Deref, item: PathItem, operation: Operation): Map<string, Schema> {
  const byName = new Map<string, Parameter>();
  // An operation's parameter overrides its path's of the same place and name.
  for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = deref(raw) as unknown as Parameter;
    byName.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  const places = new Map<string, Schema & { properties: Record<string, Schema>; required: string[] }>();
  for (const parameter of byName.values()) {
    let place = places.get(parameter.in);
    if (!place) places.set(parameter.in, (place = { type: 'object', properties: {}, required: [] }));
    const schema = parameter.schema ?? Object.values(parameter.content ?? {})[0]?.schema ?? {};
    place.properties[parameter.name] = schema as Schema;
    if (parameter.required || parameter.in === 'path') place.required.push(parameter.name);
  }
  return places;
}
