import type { ValidateFunction } from 'ajv';
import { refused } from '../domain/refusals.js';
import { createServerAjv } from '../http/ajv.js';
import type { JsonSchema } from '../http/coercion.js';
import { ApiError } from '../http/errors.js';
import { toFieldErrors } from '../http/validation-errors.js';
import type { OperationFacts } from './operations.js';

type Part = 'params' | 'body' | 'querystring';

/** The parts in the order they are judged: the first refused is the refusal. */
const PARTS: ReadonlyArray<[Part, 'params' | 'body' | 'query']> = [
  ['params', 'params'],
  ['body', 'body'],
  ['querystring', 'query'],
];

type Validators = Partial<Record<Part, ValidateFunction>>;

/**
 * Judges a call's bound request with the contract's schemas, compiled once per operation by
 * the server's one Ajv, whichever transport the call came by.
 */
export function createValidation() {
  const ajv = createServerAjv();
  const compiled = new Map<string, Validators>();
  const validatorsOf = (facts: OperationFacts): Validators => {
    let validators = compiled.get(facts.operationId);
    if (!validators) {
      const compile = (schema: JsonSchema | undefined) => (schema === undefined ? undefined : ajv.compile(schema));
      validators = { params: compile(facts.params), body: compile(facts.body), querystring: compile(facts.query) };
      compiled.set(facts.operationId, validators);
    }
    return validators;
  };

  return (facts: OperationFacts, parts: Record<'params' | 'body' | 'query', unknown>): void => {
    const validators = validatorsOf(facts);
    for (const [part, property] of PARTS) {
      const validate = validators[part];
      // A body that was not sent is the body check's to refuse, not the schema's.
      if (!validate || (part === 'body' && parts.body === undefined)) continue;
      if (validate(parts[property] ?? null)) continue;
      const errors = toFieldErrors(validate.errors ?? [], part === 'body' ? 'Body' : 'Request');
      if (errors.length > 0) throw refused(errors);
      throw new ApiError(400, 'BadRequest', `The ${part} is invalid (${validate.errors?.length ?? 0} errors).`);
    }
  };
}
