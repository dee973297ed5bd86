import { contract as contractFile } from '../src/contract/contract.js';
import { bodyMediaTypes } from '../src/contract/operations.js';

/**
 * The contract's operations as the tests read them: routes, roles, declared statuses and
 * dereferenced schemas, to derive expectations (the authorization matrix, the fuzz, the
 * response checks of test/helper.ts) from the contract rather than write them per test.
 */

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
  $ref?: string;
  [key: string]: unknown;
};

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** true when the operation needs an authenticated caller */
  secured: boolean;
  /** roles of which the caller needs any one; empty: any authenticated caller */
  roles: string[];
  /** true when any authenticated caller may name any company (`x-any-company`) */
  anyCompany: boolean;
  /** true when the operation has the tighter per-caller rate limit (`x-rate-limit: strict`) */
  strictRateLimit: boolean;
  /** true when the operation also speaks CSV (`x-csv`): its answers on request, and its body */
  csv: boolean;
  /** true when the operation is a tool of the MCP server (it is not marked `x-mcp: false`) */
  mcp: boolean;
  /** HTTP statuses the operation declares */
  statuses: Set<number>;
  /** the dereferenced JSON schema of the 200 response */
  okSchema: JsonSchema | undefined;
  /** the dereferenced JSON schema of the request body */
  bodySchema: JsonSchema | undefined;
  /** the media types the request body may be sent in, text/csv with `x-csv` (empty: the operation takes no body) */
  bodyMediaTypes: string[];
}

export interface ContractOperations {
  yamlText: string;
  document: Record<string, any>;
  operations: Map<string, OperationInfo>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'];

/** Resolves local `$ref`s into a fresh tree (the contract has no recursive schemas). */
export function deref(document: Record<string, any>, node: unknown): any {
  if (Array.isArray(node)) return node.map((item) => deref(document, item));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((value, key) => value?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    if (target === undefined) throw new Error(`Unresolved $ref ${ref}`);
    return deref(document, target);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = deref(document, value);
  return out;
}

function loadContract(): ContractOperations {
  const { yamlText, document } = contractFile();
  const operations = new Map<string, OperationInfo>();
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const method of methods) {
      const op = item[method];
      if (!op) continue;
      const security = (op.security ?? document.security ?? []) as unknown[];
      const responses = deref(document, op.responses ?? {});
      const body = op.requestBody ? deref(document, op.requestBody) : undefined;
      operations.set(op.operationId, {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        secured: security.length > 0,
        roles: (op['x-roles'] as string[] | undefined) ?? [],
        anyCompany: op['x-any-company'] === true,
        strictRateLimit: op['x-rate-limit'] === 'strict',
        csv: op['x-csv'] === true,
        mcp: op['x-mcp'] !== false,
        statuses: new Set(
          Object.keys(responses)
            .filter((code) => /^\d{3}$/.test(code))
            .map(Number),
        ),
        okSchema: responses['200']?.content?.['application/json']?.schema,
        bodySchema: body?.content?.['application/json']?.schema,
        bodyMediaTypes: bodyMediaTypes(Object.keys(body?.content ?? {}), op['x-csv'] === true),
      });
    }
  }
  return { yamlText, document, operations };
}

let cached: ContractOperations | undefined;
/** The contract's operations, read on first use. */
export function contract(): ContractOperations {
  cached ??= loadContract();
  return cached;
}
