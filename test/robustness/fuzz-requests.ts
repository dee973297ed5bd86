import fc from 'fast-check';
import { contract, deref, type OperationInfo } from '../contract-operations.js';
import { toCsv } from '../../src/http/csv.js';
import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../../src/store/demo-data.js';
import { UNKNOWN_COMPANY } from '../fixtures.js';
import {
  extraKey,
  hugeString,
  invalidValue,
  junk,
  nastyText,
  nestedJson,
  typeOf,
  validValue,
  type RealValues,
  type Schema,
} from './arbitraries.js';

/**
 * Requests for one operation of the contract, as fast-check arbitraries: valid ones (path
 * and query parameters and a JSON or CSV body from the contract's schemas, with ids of the
 * demo data mixed in) and invalid ones (each a valid request with one thing broken).
 * A RequestSpec is plain data, so fast-check prints it as the counterexample.
 */

/** Who calls: the runner turns the key into an Authorization header (see fuzz-property.ts). */
export type AuthKey =
  | 'caller' // company A, a role the operation accepts
  | 'callerB' // company B, a role the operation accepts
  | 'superadmin' // company A, superadmin
  | 'none'
  | 'noRole'
  | 'expired'
  | 'otherSecret'
  | 'algNone'
  | 'garbage';

export interface RequestSpec {
  kind: string;
  method: string;
  url: string;
  auth: AuthKey;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

// ---- the contract's parameters ----

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

export function parametersOf(op: OperationInfo): Parameter[] {
  const document = contract().document;
  return deref(document, document.paths[op.path][op.method.toLowerCase()].parameters ?? []) as Parameter[];
}

/** The fields a query's results (or an object answer) have: what OrderBy and Fields may name. */
export function resultFields(op: OperationInfo): string[] {
  const schema = op.okSchema;
  const items = (schema?.properties?.Results?.items ?? schema) as Schema | undefined;
  return Object.keys(items?.properties ?? {});
}

// ---- values of the demo data set, so that ids hit real rows ----

const demo = buildDemoData();
const ids = (items: ReadonlyArray<{ Id?: unknown }>) => items.map((item) => item.Id);

/** By the last segments of a field's path (`Resources[].Id` before `Id`). */
const REAL_BY_FIELD: Record<string, unknown[]> = {
  ArticleId: ids(demo.Articles),
  RebateCodeId: ids(demo.RebateCodes),
  BookingId: ids(demo.Bookings),
  TypeId: ids(demo.MessageTypes),
  'Services[]': ids(demo.Services),
  ServiceId: ids(demo.Services),
  'Resources[].Id': ids(demo.Resources),
  CustomerId: ids(demo.Customers),
  Email: demo.Customers.map((c) => c.Email),
  CustomerEmail: [...demo.Customers.map((c) => c.Email), 'ANNA.SVENSSON@example.com'],
  RebateCodeSign: [...demo.RebateCodes.map((c) => c.RebateCodeSign), 'gift500', 'Punch10'],
  CountryId: ['SE', 'NO', 'DK', 'FI', 'se', 'US'],
  'EventTypes[]': ['booking.created', 'booking.canceled', 'rebatecode.created', ' booking.created '],
  Name: ['Rooms', 'Bokningsbekräftelse', '  padded  '],
};

/** Per path template, for the `Id`s whose meaning depends on the operation. */
const REAL_BY_OPERATION: Record<string, Record<string, unknown[]>> = {
  '/tags/{Id}': { 'path:Id': ids(demo.Tags) },
  '/resource/{Id}': { 'path:Id': ids(demo.Resources) },
  '/customfields/{Id}': { 'path:Id': ids(demo.CustomFields) },
  '/webhook/endpoints/{Id}': { 'path:Id': ids(demo.WebhookEndpoints) },
  '/reports/booking/printout': { 'query:Id': ids(demo.Printouts) },
  '/categories': { 'query:Id': ids(demo.Categories) },
};

/** OrderBy/OrderByDesc/Fields values naming the operation's result fields. */
function fieldLists(op: OperationInfo): string[] {
  const fields = resultFields(op);
  if (fields.length === 0) return [];
  return [...fields, ...fields.map((f) => `-${f}`), ...fields.map((f) => f.toLowerCase()), fields.join(','), `${fields[1] ?? fields[0]}, -${fields[0]}`, ' ,,'];
}

/** The companies a caller may name: its own (any case, or blank for "mine"), or any for superadmin. */
function companiesFor(auth: AuthKey): unknown[] {
  if (auth === 'callerB') return [DEMO_COMPANY_B, DEMO_COMPANY_B.toUpperCase(), ''];
  if (auth === 'superadmin') return [DEMO_COMPANY_A, DEMO_COMPANY_B, UNKNOWN_COMPANY, ''];
  return [DEMO_COMPANY_A, DEMO_COMPANY_A.toUpperCase(), ''];
}

/** The real values of the demo data for a field of `op`, located `in` the path, query or body. */
export function realValues(op: OperationInfo, location: 'path' | 'query' | 'body', auth: AuthKey): RealValues {
  const byOperation = REAL_BY_OPERATION[op.path] ?? {};
  const lists = fieldLists(op);
  return (path) => {
    const own = byOperation[`${location}:${path}`];
    if (own) return own;
    const segments = path.split('.');
    const last = segments[segments.length - 1];
    if (last === 'CompanyId') return companiesFor(auth);
    if (location === 'query' && (last === 'OrderBy' || last === 'OrderByDesc' || last === 'Fields') && lists.length > 0) return lists;
    for (let i = 0; i < segments.length; i++) {
      const known = REAL_BY_FIELD[segments.slice(i).join('.')];
      if (known) return known;
    }
    return undefined;
  };
}

// ---- rendering ----

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD, as any client sends it). */
export function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A parameter value as query pairs: lists repeat the key, maps use `name[key]` (deepObject). */
export function queryPairs(name: string, value: unknown): Array<[string, string]> {
  if (value === undefined) return [];
  if (value === null) return [[name, '']];
  if (Array.isArray(value)) return value.flatMap((item) => queryPairs(name, typeof item === 'object' && item !== null ? JSON.stringify(item) : item));
  if (typeof value === 'object') return Object.entries(value).map(([key, member]) => [`${name}[${key}]`, typeof member === 'string' ? member : JSON.stringify(member)]);
  return [[name, String(value)]];
}

/** A request in parts, so that a mutation can break exactly one of them. */
export interface Parts {
  kind: string;
  method: string;
  auth: AuthKey;
  /** path parameters, already encoded */
  path: Record<string, string>;
  query: Array<[string, string]>;
  /** appended to the encoded query as is */
  rawQuery?: string;
  suffix: string;
  headers: Record<string, string>;
  body?: { encoding: 'json' | 'csv'; value: unknown } | { encoding: 'raw'; text: string | Buffer; contentType?: string };
}

export function render(op: OperationInfo, parts: Parts): RequestSpec {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => parts.path[name] ?? '');
  const query = [...parts.query.map(([k, v]) => `${encode(k)}=${encode(v)}`), ...(parts.rawQuery ? [parts.rawQuery] : [])].join('&');
  const headers = { ...parts.headers };
  let payload: string | Buffer | undefined;
  const body = parts.body;
  if (body?.encoding === 'json') {
    payload = JSON.stringify(body.value) ?? 'null';
    headers['content-type'] ??= 'application/json';
  } else if (body?.encoding === 'csv') {
    payload = toCsv(body.value);
    headers['content-type'] ??= 'text/csv';
  } else if (body?.encoding === 'raw') {
    payload = body.text;
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
  }
  return { kind: parts.kind, method: parts.method, url: `${path}${parts.suffix}${query ? `?${query}` : ''}`, auth: parts.auth, headers, ...(payload !== undefined ? { payload } : {}) };
}

// ---- valid requests ----

const formats = fc.constantFrom<string | undefined>(undefined, undefined, undefined, undefined, 'json', 'csv', 'CSV');
const suffixes = fc.constantFrom('', '', '', '', '', '.csv', '.json');
const accepts = fc.constantFrom<string | undefined>(undefined, undefined, undefined, 'application/json', 'text/csv', '*/*', 'text/csv;q=0.5, application/json', 'application/xml;q=0.9, */*;q=0.1');
const validAuth = fc.constantFrom<AuthKey>('caller', 'caller', 'caller', 'callerB', 'superadmin');

/** A request the contract's schemas accept (the data may still refuse it: 404, 409, a rule's 400). */
export function validParts(op: OperationInfo, auth: fc.Arbitrary<AuthKey> = validAuth): fc.Arbitrary<Parts> {
  const params = parametersOf(op);
  return auth.chain((who) => {
    const pathParams: Record<string, fc.Arbitrary<unknown>> = {};
    const queryParams: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const p of params) {
      if (p.in === 'path') pathParams[p.name] = validValue(p.schema, { path: p.name, real: realValues(op, 'path', who) });
      if (p.in === 'query' && p.name !== 'format') {
        queryParams[p.name] = validValue(p.schema, { path: p.name, real: realValues(op, 'query', who) });
        if (p.required) required.push(p.name);
      }
    }
    const body = op.bodySchema
      ? fc.record({
          encoding: fc.constantFrom<'json' | 'csv'>('json', 'json', 'json', 'csv'),
          value: validValue(op.bodySchema as Schema, { path: '', real: realValues(op, 'body', who) }),
        })
      : fc.constant(undefined);
    return fc
      .record({
        path: fc.record(pathParams),
        query: fc.record(queryParams, { requiredKeys: required }),
        format: formats,
        suffix: suffixes,
        accept: accepts,
        body,
      })
      .map(
        (r): Parts => ({
          kind: 'valid',
          method: op.method,
          auth: who,
          path: Object.fromEntries(Object.entries(r.path).map(([k, v]) => [k, encode(String(v))])),
          query: [...Object.entries(r.query).flatMap(([k, v]) => queryPairs(k, v)), ...(r.format ? [['format', r.format] as [string, string]] : [])],
          suffix: r.suffix,
          headers: r.accept ? { accept: r.accept } : {},
          ...(r.body ? { body: r.body } : {}),
        }),
      );
  });
}

// ---- invalid requests: a valid one with one thing broken ----

/** Every place in a schema: [] the root, names for members, 0 for the first item of a list. */
export function schemaPaths(schema: Schema, prefix: Array<string | number> = []): Array<{ path: Array<string | number>; schema: Schema }> {
  const out = [{ path: prefix, schema }];
  for (const [name, member] of Object.entries(schema.properties ?? {})) out.push(...schemaPaths(member as Schema, [...prefix, name]));
  if (schema.items) out.push(...schemaPaths(schema.items as Schema, [...prefix, 0]));
  return out;
}

/** A copy of `root` with `value` at `path` (containers created as needed). */
export function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const container: any = Array.isArray(root) ? [...root] : root !== null && typeof root === 'object' ? { ...root } : typeof head === 'number' ? [] : {};
  Object.defineProperty(container, head, { value: setAt(container[head], rest, value), enumerable: true, writable: true, configurable: true });
  return container;
}

const RAW_NUMBERS = ['1e309', '-1e309', '1e-400', '-0', '1.0', '9007199254740993', `1${'0'.repeat(400)}`, '0.1e1', '2147483648', '-2147483649', '1E2'];
const BAD_PATH_VALUES = [
  'abc', '99999999999999999999', '%00', '-1', '0', '1.5', '1e3', '0x1F', '%201', '1%20', '+1', '2147483648', 'x'.repeat(250), '%E0%A4%A',
  '%FF', '%ED%A0%80', '%2e%2e', '%2F', '1;2', 'null', 'undefined', '__proto__', 'constructor', '%F0%9F%98%80', '1,2', '%5B1%5D', 'Infinity', 'NaN', '%E2%80%AE1',
];
const RAW_QUERIES = [
  '%', '%zz', '&&&', '=x', '==', 'a[b][c]=1', 'Meta=plain', 'Meta[]=x', 'Meta[a]=1&Meta=2', `Meta[a]=${'x'.repeat(2000)}`, '__proto__[x]=1', 'constructor[prototype][x]=1',
  '__proto__=1', 'Skip=1&Skip=2', 'Take=1&Take=', 'CompanyId=&CompanyId=', 'format=xml', 'format=', 'format=csv&format=json', '%ED%A0%80=1', 'Id=%FF', `${'a=1&'.repeat(300)}b=2`,
  'Skip=-1', 'Take=1001', 'Take=99999999999', 'Skip=1e2', 'Take=0x10', 'Id=%00', 'Fields=%00', 'OrderBy=-', 'OrderBy=,,,', 'OrderBy=Id%3Bdrop%20table', 'OrderByDesc=-Name,-',
];
const BAD_CONTENT_TYPES = [
  'text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/jsonx',
  'application/octet-stream', 'text/csv; charset=latin1', 'application/csv', 'APPLICATION/JSON', 'application/json;', '*/*', 'text/html', 'application/vnd.api+json',
];
const MALFORMED_CSV = [
  'Name\r\n', 'Name\r\nRooms\r\nMore\r\n', 'Name,name\r\na,b\r\n', ',Name\r\nx,y\r\n', 'Name\r\n"unclosed\r\n', 'Name,Description\r\nonly-one\r\n', 'Name\r\n"a"b"\r\n',
  '\ufeffName\r\nRooms\r\n', 'Resources\r\n"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"\r\n', 'Resources\r\n"[{Id:1,Id:2}]"\r\n',
  'Customer\r\n"{Email:"\r\n', `Name\r\n${'x'.repeat(100_000)}\r\n`, '\r\n\r\n', '', 'a\u0000b\r\n1\r\n', '__proto__,Name\r\n{},x\r\n', 'Services\r\n"[1,2,[3]]"\r\n',
  'EventTypes,Url\r\n"[]",https://example.org\r\n', 'TypeId,Name,Title,Body\r\n1,a,b,c,d\r\n',
];
const BAD_AUTH = fc.constantFrom<AuthKey>('none', 'noRole', 'expired', 'otherSecret', 'algNone', 'garbage');

type Mutation = (parts: Parts) => fc.Arbitrary<Parts>;

function bodyMutations(op: OperationInfo): Mutation[] {
  const schema = op.bodySchema as Schema | undefined;
  if (!schema) {
    // A body where none is expected, of any kind.
    return [(p) => fc.oneof(junk.map((value) => ({ ...p, kind: 'unexpected-body', body: { encoding: 'json' as const, value } })), fc.constantFrom(...MALFORMED_CSV).map((text) => ({ ...p, kind: 'unexpected-csv-body', body: { encoding: 'raw' as const, text, contentType: 'text/csv' } })))];
  }
  const places = schemaPaths(schema);
  const numeric = places.filter((p) => typeOf(p.schema) === 'number' || typeOf(p.schema) === 'integer');
  const objects = places.filter((p) => typeOf(p.schema) === 'object' || p.schema.properties);
  const current = (p: Parts) => (p.body && p.body.encoding !== 'raw' ? p.body.value : {});
  const encoding = (p: Parts) => (p.body && p.body.encoding !== 'raw' ? p.body.encoding : 'json');
  return [
    // One field (or the root, or a list item) breaks a rule of its schema.
    (p) => fc.constantFrom(...places).chain((place) => invalidValue(place.schema).map((value) => ({ ...p, kind: `body-invalid ${place.path.join('.') || '(root)'}`, body: { encoding: encoding(p), value: setAt(current(p), place.path, value) } }))),
    // A member the schema does not declare, at the root or in a nested object.
    (p) => fc.tuple(fc.constantFrom(...objects), extraKey, junk).map(([place, key, value]) => ({ ...p, kind: 'body-extra-member', body: { encoding: 'json' as const, value: setAt(current(p), [...place.path, key], value) } })),
    // Odd text in any string field.
    (p) => fc.tuple(fc.constantFrom(...places.filter((x) => typeOf(x.schema) === 'string')), fc.oneof(nastyText, hugeString)).map(([place, value]) => ({ ...p, kind: `body-text ${place.path.join('.')}`, body: { encoding: encoding(p), value: setAt(current(p), place.path, value) } })),
    // Numbers JSON can spell but JavaScript cannot hold exactly (1e309, -0, 2^53+1).
    ...(numeric.length > 0
      ? [
          (p: Parts) =>
            fc.tuple(fc.constantFrom(...numeric), fc.constantFrom(...RAW_NUMBERS)).map(([place, raw]) => {
              const marker = '"\u0001RAW\u0001"';
              const text = JSON.stringify(setAt(current(p), place.path, '\u0001RAW\u0001')).replace(marker, raw);
              return { ...p, kind: `body-raw-number ${place.path.join('.')}`, body: { encoding: 'raw' as const, text, contentType: 'application/json' } };
            }),
        ]
      : []),
    // The whole body as junk, nested thousands deep, or a list.
    (p) => junk.map((value) => ({ ...p, kind: 'body-junk', body: { encoding: 'json' as const, value } })),
    (p) =>
      fc.tuple(fc.integer({ min: 100, max: 200_000 }), fc.constantFrom<'array' | 'object' | 'proto'>('array', 'object', 'proto')).map(([depth, kind]) => ({
        ...p,
        kind: `body-deep ${kind}`,
        body: { encoding: 'raw' as const, contentType: 'application/json', text: kind === 'proto' ? `${'{"a":'.repeat(depth)}{"__proto__":{"x":1}}${'}'.repeat(depth)}` : nestedJson(depth, kind) },
      })),
    // Missing, empty, or not text at all.
    (p) =>
      fc.constantFrom<Parts['body']>(
        undefined,
        { encoding: 'raw', text: '', contentType: 'application/json' },
        { encoding: 'raw', text: '', contentType: 'text/csv' },
        { encoding: 'raw', text: 'null', contentType: 'application/json' },
        { encoding: 'raw', text: '{"Name": ', contentType: 'application/json' },
        { encoding: 'raw', text: Buffer.from([0x7b, 0x22, 0x4e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x22, 0x7d]), contentType: 'application/json' },
        { encoding: 'raw', text: Buffer.from([0x4e, 0x61, 0x6d, 0x65, 0x0d, 0x0a, 0xff, 0xc0, 0x80, 0x0d, 0x0a]), contentType: 'text/csv' },
        { encoding: 'raw', text: Buffer.from('\ufeff{"Name":"x"}', 'utf8'), contentType: 'application/json' },
        { encoding: 'raw', text: Buffer.alloc(1_100_000, 0x61), contentType: 'application/json' },
        { encoding: 'raw', text: JSON.stringify({ Name: 'x'.repeat(1_100_000) }), contentType: 'application/json' },
      ).map((body) => ({ ...p, kind: 'body-missing-or-raw', body })),
    // A body the server does not take as its content type says.
    (p) => fc.constantFrom(...BAD_CONTENT_TYPES).map((contentType) => ({ ...p, kind: `content-type ${contentType}`, body: { encoding: 'raw' as const, contentType, text: JSON.stringify(current(p)) } })),
    (p) => fc.constantFrom(...MALFORMED_CSV).map((text) => ({ ...p, kind: 'csv-malformed', body: { encoding: 'raw' as const, contentType: 'text/csv', text } })),
    // CSV of a broken body (a wrong-typed cell, an unknown column).
    (p) => fc.constantFrom(...places.filter((x) => x.path.length === 1)).chain((place) => invalidValue(place.schema).map((value) => ({ ...p, kind: `csv-invalid ${place.path[0]}`, body: { encoding: 'csv' as const, value: setAt(current(p), place.path, value) } }))),
  ];
}

function parameterMutations(op: OperationInfo): Mutation[] {
  const params = parametersOf(op);
  const pathNames = params.filter((p) => p.in === 'path').map((p) => p.name);
  const query = params.filter((p) => p.in === 'query');
  const out: Mutation[] = [];
  if (pathNames.length > 0) {
    out.push((p) => fc.tuple(fc.constantFrom(...pathNames), fc.constantFrom(...BAD_PATH_VALUES)).map(([name, raw]) => ({ ...p, kind: `path-bad ${name}`, path: { ...p.path, [name]: raw } })));
  }
  if (query.length > 0) {
    // One parameter breaks a rule of its schema (a required one may also go missing).
    out.push((p) =>
      fc.constantFrom(...query).chain((param) =>
        fc.oneof(invalidValue(param.schema), fc.constant(undefined)).map((value) => ({
          ...p,
          kind: `query-invalid ${param.name}`,
          query: [...p.query.filter(([k]) => k !== param.name && !k.startsWith(`${param.name}[`)), ...queryPairs(param.name, typeof value === 'object' && value !== null && !Array.isArray(value) ? JSON.stringify(value) : value)],
        })),
      ),
    );
    // The same key twice, with the same or different values.
    out.push((p) =>
      fc.tuple(fc.constantFrom(...query.map((q) => q.name)), fc.oneof(fc.constantFrom('1', '0', 'true', DEMO_COMPANY_A, DEMO_COMPANY_B, 'csv', 'Id'), nastyText)).map(([name, other]) => {
        const existing = p.query.find(([k]) => k === name)?.[1] ?? other;
        return { ...p, kind: `query-duplicate ${name}`, query: [...p.query, [name, existing], [name, other]] as Array<[string, string]> };
      }),
    );
  }
  out.push((p) => fc.constantFrom(...RAW_QUERIES).map((rawQuery) => ({ ...p, kind: 'query-raw', rawQuery })));
  out.push((p) => fc.tuple(extraKey, fc.oneof(nastyText, fc.string())).map(([k, v]) => ({ ...p, kind: 'query-unknown', query: [...p.query, [k, v]] as Array<[string, string]> })));
  return out;
}

const otherMutations: Mutation[] = [
  (p) => BAD_AUTH.map((auth) => ({ ...p, kind: `auth ${auth}`, auth })),
  (p) => fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS').filter((m) => m !== p.method).map((method) => ({ ...p, kind: `method ${method}`, method })),
  (p) =>
    fc.constantFrom<{ accept?: string; format?: string; suffix?: string }>(
      { accept: 'application/xml' },
      { accept: 'text/html, image/*' },
      { accept: 'application/json;q=0, text/csv;q=0' },
      { accept: 'x'.repeat(5000) },
      { format: 'xml' },
      { format: 'jsv' },
      { suffix: '.xml' },
      { suffix: '.CSV' },
      { suffix: '/' },
      { suffix: '//' },
    ).map((change) => ({
      ...p,
      kind: 'format-bad',
      headers: change.accept ? { ...p.headers, accept: change.accept } : p.headers,
      query: change.format ? [...p.query, ['format', change.format] as [string, string]] : p.query,
      suffix: change.suffix ?? p.suffix,
    })),
];

/** A valid request with exactly one thing broken (its `kind` says what). */
export function invalidParts(op: OperationInfo): fc.Arbitrary<Parts> {
  const mutations = [...bodyMutations(op), ...parameterMutations(op), ...otherMutations];
  return fc.tuple(validParts(op), fc.integer({ min: 0, max: mutations.length - 1 })).chain(([parts, i]) => mutations[i](parts));
}

/** Mostly broken requests, a good share valid ones. */
export function requestArbitrary(op: OperationInfo): fc.Arbitrary<RequestSpec> {
  return fc.oneof({ weight: 2, arbitrary: validParts(op) }, { weight: 3, arbitrary: invalidParts(op) }).map((parts) => render(op, parts));
}
