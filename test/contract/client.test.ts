// Proof that a generator can use the contract: test/contract/client-fixture.ts calls every
// operation through openapi-fetch with the types openapi-typescript generated from
// openapi/openapi.yaml. This test only compiles the fixture with the TypeScript compiler
// API and the project's tsconfig options; the fixture is never executed.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsconfigPath = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
const fixturePath = fileURLToPath(new URL('./client-fixture.ts', import.meta.url));
const contractPath = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

function projectOptions(): { options: ts.CompilerOptions; errors: readonly ts.Diagnostic[] } {
  const read = ts.readConfigFile(tsconfigPath, (p) => ts.sys.readFile(p));
  if (read.error) return { options: {}, errors: [read.error] };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfigPath));
  return { options: { ...parsed.options, noEmit: true }, errors: parsed.errors };
}

function format(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return `TS${d.code}: ${message}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.replace(root, '')}(${line + 1},${character + 1}) TS${d.code}: ${message}`;
  });
}

/** Compiles the fixture, optionally with its source text replaced. */
function compile(options: ts.CompilerOptions, replaceFixture?: string): ts.Program {
  const host = ts.createCompilerHost(options, true);
  if (replaceFixture !== undefined) {
    const original = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) =>
      fileName === fixturePath
        ? ts.createSourceFile(fileName, replaceFixture, languageVersion, true)
        : original(fileName, languageVersion, onError, shouldCreate);
  }
  return ts.createProgram({ rootNames: [fixturePath], options, host });
}

const { options, errors: configErrors } = projectOptions();
const fixtureText = readFileSync(fixturePath, 'utf8');

t.test('the project tsconfig is read without errors and uses the ESM settings', async (t) => {
  t.strictSame(format(configErrors), [], 'tsconfig.json parses');
  t.equal(options.module, ts.ModuleKind.NodeNext, 'module NodeNext');
  t.equal(options.verbatimModuleSyntax, true, 'verbatimModuleSyntax');
  t.equal(options.strict, true, 'strict');
});

t.test('the fixture compiles with the project options and zero diagnostics', async (t) => {
  const program = compile(options);
  const fixture = program.getSourceFile(fixturePath);
  t.ok(fixture, 'the fixture is part of the program');
  const imported = program.getSourceFiles().map((f) => f.fileName.replace(root, ''));
  t.ok(imported.includes('src/generated/openapi.ts'), 'the generated contract types are compiled with it');
  t.ok(imported.some((f) => f.includes('openapi-fetch')), 'openapi-fetch types are resolved');
  t.strictSame(format(ts.getPreEmitDiagnostics(program)), [], 'no diagnostics');
});

t.test('every @ts-expect-error in the fixture marks a real type error', async (t) => {
  const directive = /^(\s*)\/\/ @ts-expect-error\b.*$/;
  const lines = fixtureText.split('\n');
  const directiveLines = lines.flatMap((line, i) => (directive.test(line) ? [i + 1] : []));
  t.ok(directiveLines.length >= 3, `the fixture has wrong calls (${directiveLines.length})`);
  // Without the directives, each line following one must fail to compile, and nothing else.
  const stripped = lines.map((line) => line.replace(directive, '$1// (expect-error removed)')).join('\n');
  const program = compile(options, stripped);
  const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(fixturePath));
  const errorLines = new Set<number>();
  for (const d of diagnostics) {
    if (d.file && d.start !== undefined) errorLines.add(d.file.getLineAndCharacterOfPosition(d.start).line + 1);
  }
  for (const line of directiveLines) {
    t.ok(errorLines.has(line + 1), `line ${line + 1} fails to compile: ${lines[line]?.trim()}`);
  }
  const elsewhere = [...errorLines].filter((l) => !directiveLines.includes(l - 1));
  t.strictSame(elsewhere, [], 'no errors on other lines');
  for (const message of format(diagnostics)) t.comment(message);
  const codes = new Set(diagnostics.map((d) => d.code));
  t.notOk(codes.has(2307), 'no error is a module-resolution failure');
});

/** `client.METHOD('/path', ...)` calls inside the named function of the fixture. */
function callsIn(functionName: string): string[] {
  const source = ts.createSourceFile(fixturePath, fixtureText, ts.ScriptTarget.ES2022, true);
  const calls: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      /^(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE)$/.test(node.expression.name.text) &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      calls.push(`${node.expression.name.text} ${node.arguments[0].text}`);
    }
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === functionName) visit(statement);
  }
  return calls;
}

t.test('the fixture calls each operation of the contract exactly once', async (t) => {
  const contract = parse(readFileSync(contractPath, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
  const expected = Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => methods.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
  t.equal(expected.length, 16, "the contract has the API's own thirteen operations and three extensions");
  t.strictSame(callsIn('callEveryOperation').sort(), expected.sort());
});

t.test('the fixture is never executed', async (t) => {
  t.notMatch(fixturePath, /\.test\.ts$/, 'not picked up by tap (test/**/*.test.ts)');
  const source = ts.createSourceFile(fixturePath, fixtureText, ts.ScriptTarget.ES2022, true);
  for (const statement of source.statements) {
    const harmless =
      ts.isImportDeclaration(statement) ||
      ts.isFunctionDeclaration(statement) ||
      (ts.isVariableStatement(statement) &&
        statement.declarationList.declarations.every((d) => !d.initializer || ts.isStringLiteral(d.initializer)));
    t.ok(harmless, `top-level statement only declares: ${statement.getText().split('\n')[0]}`);
  }
  t.match(fixtureText, /fetch: async \(\) => \{\s*throw new Error/, 'its client refuses to send requests');
});
