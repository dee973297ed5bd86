// The differences openapi-diff does not read, found by walking both contracts (as OpenAPI 3.0,
// toOpenApi30's copies): parameters (it compares none), enum values, the keywords its schema
// comparison ignores (format, pattern, nullable) and the webhooks (`x-webhooks` in the copies).
// Every operation the two contracts share is compared: its parameters, its JSON request body and
// the JSON body of each status both declare, each judged as compareSchemas judges its side.
// Operations and statuses removed are openapi-diff's to report. A webhook is the other way
// round: the server sends its body and headers, which are judged as answers, and reads the
// receiver's answer; an event or a status of its removed is reported here. An event's body is
// also kept and listed as a message's Payload, so a field newly required in it breaks.
import { compareSchemas, folded, type Deref, type Direction, type Schema } from './schemas.js';

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

  /** One operation both contracts have: served (a path's) or sent (a webhook's). */
  function operation(at: string, items: [PathItem, PathItem], before: Operation, after: Operation, sent: boolean): void {
    // Parameters compare as the properties of one object per place (path, query, header,
    // cookie), so a parameter removed, added or newly required reads as a field would.
    const [paramsBefore, paramsAfter] = [parameters(deref.before, items[0], before), parameters(deref.after, items[1], after)];
    for (const place of new Set([...paramsBefore.keys(), ...paramsAfter.keys()])) {
      const none = { type: 'object', properties: {} };
      const [placeBefore, placeAfter] = [paramsBefore.get(place) ?? none, paramsAfter.get(place) ?? none];
      const [part, direction] = sent ? ['webhook.parameter', 'response' as const] : ['request.parameter', 'request' as const];
      compare(`${at}, ${place} parameters`, part, direction, placeBefore, placeAfter);
    }

    const bodyBefore = deref.before(before.requestBody) as Body | undefined;
    const bodyAfter = deref.after(after.requestBody) as Body | undefined;
    const [schemaBefore, schemaAfter] = [jsonSchema(bodyBefore), jsonSchema(bodyAfter)];
    const [request, part] = sent ? [`${at}, body`, 'webhook.body'] : [`${at}, request body`, 'request.body'];
    if (schemaBefore && !schemaAfter) add(request, `${part}.remove`, 'the body removed', true);
    else if (!schemaBefore && schemaAfter) {
      const required = !sent && !!bodyAfter?.required;
      add(request, `${part}.add`, `the body added${required ? ', required' : ''}`, required);
    } else if (schemaBefore && schemaAfter) {
      if (!sent && !bodyBefore?.required && bodyAfter?.required) add(request, `${part}.required`, 'the body now required', true);
      if (sent && bodyBefore?.required && !bodyAfter?.required) add(request, `${part}.optional`, 'the body no longer always sent', true);
      compare(request, part, sent ? 'stored' : 'request', schemaBefore, schemaAfter);
    }

    for (const [status, rawResponse] of Object.entries(before.responses ?? {})) {
      if (!after.responses || !(status in after.responses)) {
        if (sent) add(`${at}, response ${status}`, 'webhook.response.remove', `the answer ${status} no longer read`, true);
        continue;
      }
      const where = `${at}, response ${status} body`;
      const code = sent ? 'webhook.response' : 'response.body';
      const responseBefore = jsonSchema(deref.before(rawResponse) as Body);
      const responseAfter = jsonSchema(deref.after(after.responses[status]) as Body);
      if (responseBefore && !responseAfter) add(where, `${code}.remove`, 'the body removed', !sent);
      else if (!responseBefore && responseAfter) add(where, `${code}.add`, 'the body added', sent);
      else if (responseBefore && responseAfter) compare(where, code, sent ? 'request' : 'response', responseBefore, responseAfter);
    }
  }

  const currentPaths = new Map(
    Object.entries(current.paths ?? {}).map(([path, item]) => [normalized(path), deref.after(item) as PathItem]),
  );
  for (const [path, rawItem] of Object.entries(released.paths ?? {})) {
    const [itemBefore, itemAfter] = [deref.before(rawItem) as PathItem, currentPaths.get(normalized(path))];
    if (!itemAfter) continue;
    for (const method of methods) {
      const [before, after] = [itemBefore[method] as Operation | undefined, itemAfter[method] as Operation | undefined];
      if (before && after) operation(`${method.toUpperCase()} ${path}`, [itemBefore, itemAfter], before, after, false);
    }
  }

  // The webhooks: an event removed breaks its receivers, one added reaches none that did not subscribe to it.
  const [hooksBefore, hooksAfter] = [webhooks(released), webhooks(current)];
  for (const event of new Set([...Object.keys(hooksBefore), ...Object.keys(hooksAfter)])) {
    const where = `webhook ${event}`;
    if (!(event in hooksAfter)) add(where, 'webhook.remove', 'the event removed', true);
    else if (!(event in hooksBefore)) add(where, 'webhook.add', 'the event added', false);
    else {
      const [itemBefore, itemAfter] = [deref.before(hooksBefore[event]) as PathItem, deref.after(hooksAfter[event]) as PathItem];
      for (const method of methods) {
        const [before, after] = [itemBefore[method] as Operation | undefined, itemAfter[method] as Operation | undefined];
        const at = method === 'post' ? where : `${where} (${method.toUpperCase()})`;
        if (before && !after) add(at, 'webhook.remove', `the ${method.toUpperCase()} removed`, true);
        else if (!before && after) add(at, 'webhook.add', `the ${method.toUpperCase()} added`, false);
        else if (before && after) operation(at, [itemBefore, itemAfter], before, after, true);
      }
    }
  }
  return findings;
}

/** The webhooks of a 3.0 copy, where 3.1's `webhooks` section is `x-webhooks`. */
function webhooks(document: Document): Record<string, unknown> {
  return (document['x-webhooks'] ?? {}) as Record<string, unknown>;
}

/**
 * A copy of `document` with each `oneOf` and `anyOf` read as the union of its schemas, for
 * openapi-diff: its schema comparison takes exponential time over alternatives that are large
 * objects (the events of WebhookEvent). compareSchemas judges such a change (`union`).
 */
export function withoutUnions(document: Document): Document {
  const copy = structuredClone(document);
  const deref = localRefs(copy);
  const visit = (node: unknown, names: boolean): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, false);
      return;
    }
    const schema = node as Schema;
    for (const key of ['oneOf', 'anyOf'] as const) {
      if (names || !Array.isArray(schema[key])) continue;
      const union = folded(schema, key, deref);
      for (const name of Object.keys(schema)) delete schema[name];
      Object.assign(schema, union);
    }
    for (const [key, value] of Object.entries(schema)) visit(value, !names && key === 'properties');
  };
  visit(copy, false);
  return copy;
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
