// Proof that the contract makes good clients with the popular generators at their DEFAULT
// options: @hey-api/openapi-ts, orval and swagger-typescript-api (versions pinned in
// package.json) each generate a client into a temporary directory, as a new user would run
// them; one `tsc --strict` run compiles the generated code with a call file per generator
// (test/clients/*.calls.ts, every operation of the contract with typed reads of the
// answers); then each call file runs against a server on 127.0.0.1 loaded with the demo data,
// and every answer must be a 200 the contract allows, with the data the call asked for.
//
// The contract is OpenAPI 3.1. A generator reads it as it is where its pinned version reads 3.1
// as well as 3.0, and otherwise the contract's OpenAPI 3.0.3 copy (src/contract/openapi-3.0.ts)
// written to the temporary directory (docs/contract.md says the same):
// - @hey-api/openapi-ts reads 3.1: `type: [X, 'null']` is `X | null`, `const` a literal, and
//   it types the `webhooks` too (a ...WebhookPayload type per event), which 3.0 cannot carry.
// - orval 7 reads the 3.0 copy: on 3.1 it makes a nullable enum a bare union without the
//   x-enum-varnames constants (no `ResourceCategory.Object`), and it lacks the fix for a
//   `$ref` beside `null` (orval-labs/orval#2875); newer orval needs Node 22.18.
// - swagger-typescript-api reads the 3.0 copy: on 3.1 it drops `null` from a nullable enum
//   (RebateCodeTransactionQueryResponse.RebateCodeTypeId) and the schemas' examples.

import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import ts from 'typescript';
import { contract as contractFile } from '../../src/contract/contract.js';
import { toOpenApi30 } from '../../src/contract/openapi-3.0.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { insertMcpGrant } from '../../src/store/repositories/mcp-grants.js';
import { contract } from '../contract-operations.js';
import { EXAMPLES } from '../examples.js';
import { assertContract, buildTestApp, token, WRITE } from '../helper.js';
import type { Answer, Target } from './target.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('./', import.meta.url));

interface Generator {
  /** The document it reads: the contract (3.1), or its 3.0.3 copy (see above why). */
  reads: '3.1' | '3.0';
  /** Its command line as its documentation gives it, reading `input`, writing into `out`. */
  command: (input: string, out: string) => [string, string[]];
  /**
   * Typed assignments of `null` to nullable fields (a schema's property, a query
   * parameter) of what it generated: they compile only while its types admit null.
   */
  nullable: string;
}

const GENERATORS: Record<string, Generator> = {
  'hey-api': {
    reads: '3.1',
    command: (input, out) => ['openapi-ts', ['-i', input, '-o', out]],
    nullable: `import type { BookingPrintoutQueryData, RebateCodeTransactionQueryResponse, ResourceQueryResponse } from './hey-api/index.js';
export const reminder: ResourceQueryResponse['SendEmailReminder'] = null;
export const type: RebateCodeTransactionQueryResponse['RebateCodeTypeId'] = null;
export const skip: NonNullable<BookingPrintoutQueryData['query']>['Skip'] = null;
`,
  },
  orval: {
    reads: '3.0',
    command: (input, out) => ['orval', ['--input', input, '--output', join(out, 'api.ts')]],
    nullable: `import type { BookingPrintoutQueryParams, RebateCodeTransactionQueryResponse, ResourceQueryResponse } from './orval/api.js';
export const reminder: ResourceQueryResponse['SendEmailReminder'] = null;
export const type: RebateCodeTransactionQueryResponse['RebateCodeTypeId'] = null;
export const skip: BookingPrintoutQueryParams['Skip'] = null;
`,
  },
  'swagger-typescript-api': {
    reads: '3.0',
    command: (input, out) => ['swagger-typescript-api', ['generate', '-p', input, '-o', out]],
    nullable: `import type { Api, RebateCodeTransactionQueryResponse, ResourceQueryResponse } from './swagger-typescript-api/Api.js';
export const reminder: ResourceQueryResponse['SendEmailReminder'] = null;
export const type: RebateCodeTransactionQueryResponse['RebateCodeTypeId'] = null;
export const skip: NonNullable<Parameters<Api<unknown>['reports']['bookingPrintoutQuery']>[0]>['Skip'] = null;
`,
  },
};
const NAMES = Object.keys(GENERATORS);

/** What the query operations send as Meta; the envelope must echo it. */
const META = { client: 'generated', page: '1' };

const dir = await mkdtemp(join(tmpdir(), 'booking-clients-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

// The call files and the generated code import as a user's project would: ESM, and the
// generators' runtime dependencies (orval's axios) from the project's node_modules.
await writeFile(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
for (const file of await readdir(here)) {
  if (file.endsWith('.ts') && !file.endsWith('.test.ts')) await copyFile(join(here, file), join(dir, file));
}
await copyFile(join(here, '..', 'examples.ts'), join(dir, 'examples.ts'));

for (const name of NAMES) await writeFile(join(dir, `${name}.nullable.ts`), GENERATORS[name].nullable);

const INPUTS = { '3.1': './openapi/openapi.yaml', '3.0': join(dir, 'openapi-3.0.json') };
await writeFile(INPUTS['3.0'], JSON.stringify(toOpenApi30(contractFile().document), null, 2));

const run = promisify(execFile);
const generated = await Promise.allSettled(
  NAMES.map(async (name) => {
    const [bin, args] = GENERATORS[name].command(INPUTS[GENERATORS[name].reads], join(dir, name));
    return run(join(root, 'node_modules', '.bin', bin), args, { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
  }),
);

t.test('each generator generates a client from the contract at its default options', async (t) => {
  generated.forEach((result, i) => t.equal(result.status, 'fulfilled', `${NAMES[i]}: ${result.status === 'rejected' ? String(result.reason) : 'generated'}`));
});

t.test('the generated clients and every call compile under tsc --strict', async (t) => {
  // The clients are written for fetch (DOM's Request, Response, RequestInit); skipLibCheck
  // skips only declaration files such as axios's: the generated code itself is checked.
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [], skipLibCheck: true },
    dir,
  );
  t.strictSame(errors, [], 'the compiler options are valid');
  const rootNames = NAMES.flatMap((name) => [join(dir, `${name}.calls.ts`), join(dir, `${name}.nullable.ts`)]);
  const program = ts.createProgram({ rootNames, options });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return `TS${d.code}: ${message}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.replace(dir, '')}(${line + 1},${character + 1}) TS${d.code}: ${message}`;
  });
  const inNullable = (d: string) => /^\/[\w-]+\.nullable\.ts\(/.test(d);
  t.strictSame(diagnostics.filter((d) => !inNullable(d)), [], 'no diagnostics');
  const compiled = program.getSourceFiles().map((f) => f.fileName.replace(`${dir}/`, ''));
  for (const name of NAMES) {
    t.ok(compiled.some((f) => f.startsWith(`${name}/`)), `${name}'s generated code is compiled`);
    // A generator that drops `| null` (as orval 8.0 did for 3.0's `nullable: true`,
    // orval-labs/orval#2755 and #2795) fails here rather than type a null as absent.
    t.strictSame(diagnostics.filter((d) => d.startsWith(`/${name}.nullable.ts(`)), [], `${name} (from the ${GENERATORS[name].reads} document) types nullable fields as admitting null`);
  }
});

t.test('generators keep the contract\'s names (no renamed duplicates such as CreateArticleRebateCode2)', async (t) => {
  const exported: string[] = (await readFile(join(dir, 'hey-api', 'index.ts'), 'utf8')).match(/\b[A-Z]\w*\b/g) ?? [];
  t.strictSame(exported.filter((name) => /[a-z]\d+$/.test(name)), [], 'hey-api exports no numbered names');
  t.ok(exported.includes('RebateCodeResponse') && exported.includes('RebateCodeType'), 'hey-api exports the schemas by their names');
});

/** The grant the call files list and revoke: the demo data holds none, so each run makes one. */
const GRANT_ID = 'grant-of-a-generated-client';

/** What each operation's answer must hold, for the calls the call files make on the demo data. */
const EXPECTED: Record<string, object> = {
  // Resource 101 has bookings: Force deactivates it.
  DeleteResource: { Id: 101, Active: false },
  // Article 103 is a 500 kr gift card: a GiftCard (5) code, Active (1), worth 500.
  CreateArticleRebateCode: { RebateCodeTypeId: 5, RebateCodeStatusId: 1, RemainingAmount: 500, Article: { Id: 103 } },
  GetRebateCodeBySign: { RebateCodeSign: 'VALUE1000', RebateCodeTypeId: 4, Services: Array },
  CreateRebateCodeTransaction: { RebateCodeTransactionItem: { RebateCodeId: 101, Amount: 10 } },
  DeleteCustomField: { Id: 101 },
  BookingPrintoutQuery: { Offset: 0, Results: Array, Meta: META },
  CreateMessageTemplate: { Name: EXAMPLES.CreateMessageTemplate.default.body.Name, Language: 'en', MessageType: { Id: 1, SendMethodId: 1 }, Services: [{ Id: 101 }] },
  DeleteTag: { Id: 101, Active: false },
  CreateResourceType: { Name: EXAMPLES.CreateResourceType.default.body.Name, Active: true, Resources: [{ Id: 102, Priority: 1 }] },
  BillingMethodQuery: { Results: Array, Meta: META },
  CategoryQuery: { Offset: 0, Results: Array, Meta: META },
  GetMcpUsage: { CompanyId: DEMO_COMPANY_A, TokensUsed: Number, TokensRemaining: Number },
  UpdateWebhookEndpoint: { Id: 'wh_bookings', ...EXAMPLES.UpdateWebhookEndpoint.default.body },
  WebhookEndpointMessageQuery: { Offset: 0, Total: 0, Results: [] },
  McpGrantQuery: { Offset: 0, Total: 1, Results: [{ Id: GRANT_ID, Scopes: ['booking.read', 'booking.write'], TokensUsed: 0 }] },
  DeleteMcpGrant: { Id: GRANT_ID, ClientOrigin: 'assistant.example', TokensUsed: 0 },
};

for (const name of NAMES) {
  t.test(`${name}: every operation answers 200 with its data, as the contract says`, async (t) => {
    const api = await buildTestApp(t, { data: buildDemoData() });
    const now = Date.now();
    await insertMcpGrant(api.store.db, {
      grantId: GRANT_ID, companyId: DEMO_COMPANY_A, sub: 'ada', clientId: 'https://assistant.example/client.json', clientOrigin: 'assistant.example',
      clientName: 'Assistant', scopes: ['booking.read', 'booking.write'], roles: [WRITE], createdAt: now, expiresAt: now + 86_400_000,
    });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.server.address() as AddressInfo;
    const target: Target = {
      baseUrl: `http://127.0.0.1:${port}`,
      token: await token(DEMO_COMPANY_A, [WRITE]),
      companyId: DEMO_COMPANY_A,
      meta: META,
      grantId: GRANT_ID,
    };
    const calls = (await import(pathToFileURL(join(dir, `${name}.calls.ts`)).href)) as { callEveryOperation(target: Target): Promise<Answer[]> };
    const answers = await calls.callEveryOperation(target);

    t.strictSame(answers.map((a) => a.operationId).sort(), [...contract().operations.keys()].sort(), 'each operation of the contract once');
    for (const answer of answers) {
      const url = new URL(answer.url, target.baseUrl);
      t.equal(url.host, `127.0.0.1:${port}`, `${answer.operationId} went to the test server`);
      t.equal(answer.status, 200, `${answer.operationId} answered 200`);
      t.doesNotThrow(() => {
        const body = JSON.stringify(answer.data);
        const response = { statusCode: answer.status, headers: { 'content-type': answer.contentType }, body, json: () => JSON.parse(body) };
        assertContract(answer.method, url.pathname + url.search, response);
      }, `${answer.operationId}: the answer is one the contract allows`);
      t.match(answer.data, EXPECTED[answer.operationId], `${answer.operationId}: the data asked for`);
    }
    const categories = answers.find((a) => a.operationId === 'CategoryQuery')?.data as { Results: object[] } | undefined;
    t.ok(categories?.Results.every((c) => Object.keys(c).every((k) => k === 'Id' || k === 'Name')), 'CategoryQuery: Fields sent');
  });
}
