/**
 * The contract's schemas as one tool's schema (docs/decisions.md, "The MCP server"). They
 * are JSON Schema 2020-12 already (OpenAPI 3.1): a component schema becomes one entry of
 * `$defs` referred to by `#/$defs/Name`, and OpenAPI's own vocabulary (`x-` keys,
 * `discriminator`, `xml`, `externalDocs`, the formats JSON Schema validators warn about) is
 * left out. Only `#/components/schemas/…` may be referred to: any other reference stops
 * start-up rather than send a client a reference it must fetch.
 */

export type JsonSchema = Record<string, unknown>;

const OPENAPI_KEYWORDS = new Set(['discriminator', 'xml', 'externalDocs']);
const OPENAPI_FORMATS = new Set(['int16', 'int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']);
/** Keywords whose value maps names to schemas, rather than being a schema or a list of them. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const COMPONENT = '#/components/schemas/';

/** Bundles schemas of one document into one tool's schema, each component schema once in `defs`. */
export class SchemaBundler {
  readonly defs: Record<string, JsonSchema> = {};

  constructor(private readonly document: Record<string, any>) {}

  private target(ref: string): { name: string; schema: JsonSchema } {
    if (!ref.startsWith(COMPONENT)) throw new Error(`MCP tools can only refer to ${COMPONENT}…, not ${ref}`);
    const name = ref.slice(COMPONENT.length);
    const schema = this.document.components?.schemas?.[name];
    if (schema === undefined) throw new Error(`Unresolved $ref ${ref}`);
    return { name, schema };
  }

  /** The schema a `$ref` names, or the schema itself, as written. */
  resolve(schema: JsonSchema): JsonSchema {
    return typeof schema.$ref === 'string' ? this.resolve(this.target(schema.$ref).schema) : schema;
  }

  bundle(schema: unknown): JsonSchema {
    if (Array.isArray(schema)) return schema.map((item) => this.bundle(item)) as unknown as JsonSchema;
    if (schema === null || typeof schema !== 'object') return schema as JsonSchema;
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key.startsWith('x-') || OPENAPI_KEYWORDS.has(key)) continue;
      if (key === 'format' && OPENAPI_FORMATS.has(value as string)) continue;
      if (key === '$ref') out.$ref = this.reference(value as string);
      else if (SCHEMA_MAPS.has(key)) out[key] = Object.fromEntries(Object.entries(value as object).map(([name, s]) => [name, this.bundle(s)]));
      else out[key] = typeof value === 'object' ? this.bundle(value) : value;
    }
    return out;
  }

  private reference(ref: string): string {
    const { name, schema } = this.target(ref);
    if (!Object.hasOwn(this.defs, name)) {
      // Claimed before bundling, so that a schema that refers to itself ends.
      this.defs[name] = {};
      this.defs[name] = this.bundle(schema);
    }
    return `#/$defs/${name}`;
  }
}
