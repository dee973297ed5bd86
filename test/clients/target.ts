// Shared by the call files of test/clients: what they are given and what they give back.
// Like them, it is compiled and run by clients.test.ts in a temporary directory beside the
// generated clients, never by the project's own tsconfig.

/** The server the calls go to and the caller they act as (company A of the demo data). */
export interface Target {
  baseUrl: string;
  /** a bearer token with the write role of `companyId` */
  token: string;
  companyId: string;
  /** sent as the query operations' Meta, which the envelope echoes */
  meta: Record<string, string>;
  /** a grant of `companyId` that the calls list and then revoke (the demo data holds none) */
  grantId: string;
}

/** One call as the generated client saw it; clients.test.ts checks it against the contract. */
export interface Answer {
  operationId: string;
  method: string;
  /** the URL the client requested */
  url: string;
  status: number;
  contentType: string;
  /** the client's typed, parsed body */
  data: unknown;
}
