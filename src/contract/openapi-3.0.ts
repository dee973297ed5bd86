/**
 * The contract as OpenAPI 3.0.3, for generators that do not read 3.1 yet and for openapi-diff
 * (`npm run check:compat`); `GET /openapi-3.0.json` serves it. Each schema says the same in
 * 3.0's words: `type: [X, 'null']` is `type: X, nullable: true`, `const` a one-value `enum`,
 * `examples` its first `example`, a numeric exclusive bound a `minimum`/`maximum` with the
 * boolean flag. 3.0 has no `webhooks`: the section moves to `x-webhooks`, rewritten alike.
 * Only schema positions are walked, so a property named `type` or `const` keeps its name.
 * A 3.0 document comes back unchanged.
 */

type Node = Record<string, any>;

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const combinators = ['allOf', 'anyOf', 'oneOf'];
const bounds = [
  ['exclusiveMinimum', 'minimum', (a: number, b: number) => a >= b],
  ['exclusiveMaximum', 'maximum', (a: number, b: number) => a <= b],
] as const;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const eachValue = (map: unknown, visit: (node: Node) => void) => {
  if (isNode(map)) for (const value of Object.values(map)) if (isNode(value)) visit(value);
};

/** A deep copy of `document` (OpenAPI 3.1 or 3.0) as OpenAPI 3.0.3. */
export function toOpenApi30<T extends Node>(document: T): T {
  const copy: Node = structuredClone(document);
  copy.openapi = '3.0.3';
  delete copy.jsonSchemaDialect;
  if ('webhooks' in copy) {
    copy['x-webhooks'] = copy.webhooks;
    delete copy.webhooks;
  }
  eachValue(copy.paths, pathItem);
  eachValue(copy['x-webhooks'], pathItem);
  const components: Node = copy.components ?? {};
  eachValue(components.schemas, schema);
  eachValue(components.parameters, parameter);
  eachValue(components.headers, parameter);
  eachValue(components.requestBodies, content);
  eachValue(components.responses, response);
  eachValue(components.callbacks, (callback) => eachValue(callback, pathItem));
  eachValue(components.pathItems, pathItem);
  return copy as T;
}

function pathItem(item: Node): void {
  (item.parameters ?? []).forEach(parameter);
  for (const method of methods) {
    const operation = item[method];
    if (!isNode(operation)) continue;
    (operation.parameters ?? []).forEach(parameter);
    if (isNode(operation.requestBody)) content(operation.requestBody);
    eachValue(operation.responses, response);
    eachValue(operation.callbacks, (callback) => eachValue(callback, pathItem));
  }
}

/** A parameter or a header: a schema, or a content map. */
function parameter(node: Node): void {
  if (isNode(node.schema)) schema(node.schema);
  content(node);
}

function response(node: Node): void {
  eachValue(node.headers, parameter);
  content(node);
}

function content(node: Node): void {
  eachValue(node.content, (media) => {
    if (isNode(media.schema)) schema(media.schema);
  });
}

/** Keywords of JSON Schema 2020-12 that OpenAPI 3.0 has no words for: a copy would drop their meaning. */
const untranslatable = ['prefixItems', 'if', 'then', 'else', 'patternProperties', 'propertyNames', 'dependentSchemas', 'dependentRequired', 'contains', '$defs', 'unevaluatedProperties', 'unevaluatedItems'];

function schema(node: Node): void {
  const unknown = untranslatable.find((keyword) => keyword in node);
  if (unknown !== undefined || node.type === 'null') throw new Error(`${unknown ?? "type 'null'"}: OpenAPI 3.0 cannot say it`);
  if (Array.isArray(node.type)) {
    const types = node.type.filter((type: unknown) => type !== 'null');
    if (types.length !== 1) throw new Error(`type ${JSON.stringify(node.type)}: OpenAPI 3.0 has one type per schema`);
    if (types.length < node.type.length) node.nullable = true;
    node.type = types[0];
  }
  if ('const' in node) {
    node.enum = [node.const];
    delete node.const;
  }
  if (Array.isArray(node.examples)) {
    if (node.examples.length > 0) node.example = node.examples[0];
    delete node.examples;
  }
  for (const [exclusive, inclusive, stricter] of bounds) {
    const limit = node[exclusive];
    if (typeof limit !== 'number') continue;
    if (typeof node[inclusive] === 'number' && !stricter(limit, node[inclusive])) delete node[exclusive];
    else Object.assign(node, { [inclusive]: limit, [exclusive]: true });
  }
  eachValue(node.properties, schema);
  for (const key of ['items', 'additionalProperties', 'not']) if (isNode(node[key])) schema(node[key]);
  for (const key of combinators) if (Array.isArray(node[key])) node[key].filter(isNode).forEach(schema);
}
