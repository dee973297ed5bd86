/**
 * The contract's OpenAPI 3.0 schemas as JSON Schema 2020-12, the dialect of MCP tool schemas
 * (docs/decisions.md, "The MCP server"): `nullable` becomes a type that admits null, a
 * component schema becomes one entry of `$defs` referred to by `#/$defs/Name`, and what
 * JSON Schema does not know (`example`, the `x-` keys, OpenAPI's number formats) is left out.
 * Only the document's own `#/components/schemas/…` may be referred to: anything else, a file
 * or a URL above all, stops start-up rather than send a client a reference it must fetch.
 */

export type JsonSchema = Record<string, unknown>;

/** OpenAPI's number formats, which JSON Schema validators do not know. */
const OPENAPI_FORMATS = new Set(['int16', 'int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']);
/** Keywords of OpenAPI 3.0 that JSON Schema has no use for. */
const DROPPED = new Set(['nullable', 'example', 'discriminator', 'xml', 'externalDocs']);
const COMPONENT = '#/components/schemas/';

/**
 * Converts schemas of one document into one tool's schema: every component schema they reach
 * is converted once into `defs`, so a tool's schema carries each at most once.
 */
export class SchemaConverter {
  readonly defs: Record<string, JsonSchema> = {};

  constructor(private readonly document: Record<string, any>) {}

  /** The component schema a `$ref` names, converted into `defs`; throws on any other reference. */
  private reference(ref: string): JsonSchema {
    if (!ref.startsWith(COMPONENT)) throw new Error(`MCP tools can only refer to ${COMPONENT}…, not ${ref}`);
    const name = ref.slice(COMPONENT.length);
    if (!Object.hasOwn(this.defs, name)) {
      const target = this.document.components?.schemas?.[name];
      if (target === undefined) throw new Error(`Unresolved $ref ${ref}`);
      // Claimed before converting, so that a schema that refers to itself ends.
      this.defs[name] = {};
      this.defs[name] = this.convert(target);
    }
    return { $ref: `#/$defs/${name}` };
  }

  /** The schema a `$ref` names, or the schema itself, without converting it. */
  resolve(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    if (!ref.startsWith(COMPONENT)) throw new Error(`MCP tools can only refer to ${COMPONENT}…, not ${ref}`);
    const target = this.document.components?.schemas?.[ref.slice(COMPONENT.length)];
    if (target === undefined) throw new Error(`Unresolved $ref ${ref}`);
    return this.resolve(target);
  }

  convert(schema: unknown): JsonSchema {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema as JsonSchema;
    const source = schema as JsonSchema;
    if (typeof source.$ref === 'string') return this.nullable(this.reference(source.$ref), source.nullable === true);
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(source)) {
      if (DROPPED.has(key) || key.startsWith('x-')) continue;
      if (key === 'format' && OPENAPI_FORMATS.has(value as string)) continue;
      out[key] = this.keyword(key, value);
    }
    // OpenAPI 3.0's boolean exclusive bounds are JSON Schema's numeric ones.
    for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (out[exclusive] === true) {
        out[exclusive] = out[bound];
        delete out[bound];
      } else if (out[exclusive] === false) delete out[exclusive];
    }
    return this.nullable(out, source.nullable === true);
  }

  private keyword(key: string, value: unknown): unknown {
    switch (key) {
      case 'properties':
        return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, s]) => [name, this.convert(s)]));
      case 'items':
      case 'not':
        return this.convert(value);
      case 'additionalProperties':
        return typeof value === 'object' ? this.convert(value) : value;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        return (value as unknown[]).map((s) => this.convert(s));
      default:
        return value;
    }
  }

  /** A schema that also admits null: a type list where there is a type, else a union with null. */
  private nullable(schema: JsonSchema, nullable: boolean): JsonSchema {
    if (!nullable) return schema;
    if (typeof schema.type === 'string') {
      const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
      return out;
    }
    return { anyOf: [schema, { type: 'null' }] };
  }
}
