import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The contract file, read once. fastify-openapi-glue builds every route from its document
 * and puts the schemas and `x-` keys on each route, where the plugins read them; the docs
 * plugin serves the same text.
 */
export const contractPath = new URL('../../openapi/openapi.yaml', import.meta.url);

export interface Contract {
  yamlText: string;
  document: Record<string, any>;
}

let cached: Contract | undefined;

export function contract(): Contract {
  if (!cached) {
    const yamlText = readFileSync(contractPath, 'utf8');
    cached = { yamlText, document: parse(yamlText) as Record<string, any> };
  }
  return cached;
}
