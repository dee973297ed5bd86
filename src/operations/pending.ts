import { ApiError } from '../http/errors.js';

/** Placeholder while an operation is being built: answers 501 with a ResponseStatus. */
export const pending = (operationId: string) => async (): Promise<never> => {
  throw new ApiError(501, 'NotImplemented', `${operationId} is not available yet.`);
};
