// Credentials, roles and errors: who may call each operation, the error statuses it declares
// (the original's), and the one error shape every error answer has.

import t from 'tap';
import { DECIDED_ROLES, OPERATIONS, STATUS_403_ONLY_ON, STATUS_404_ON, STATUS_409_ON, UNAUTHENTICATED } from './interface-operations.js';
import { RESPONSE_OBJECTS } from './interface-responses.js';
import { contract, deref, fieldSetDiff, isRequired, type Obj, opById, ops, pointer } from './shared.js';

t.test('security: CategoryQuery is open, every other operation uses bearerAuth', async (t) => {
  const scheme = deref(contract.components?.securitySchemes?.bearerAuth);
  t.equal(scheme?.type, 'http', 'bearerAuth is an http scheme');
  t.equal(scheme?.scheme, 'bearer', 'bearerAuth is a bearer scheme');
  for (const o of ops) {
    const effective = o.op.security ?? contract.security;
    if (o.operationId === UNAUTHENTICATED) {
      t.strictSame(o.op.security, [], `${o.operationId} declares security: []`);
    } else {
      t.strictSame(effective, [{ bearerAuth: [] }], `${o.operationId} uses bearerAuth`);
    }
  }
});

t.test('x-roles lists are exactly the original\'s Roles lines, or the roles decided for writes', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    const found = opById.get(id);
    if (!found) {
      t.fail(`${id} is missing`);
      continue;
    }
    const roles = doc.roles ?? DECIDED_ROLES[id];
    if (roles) t.strictSame(found.op['x-roles'], roles, `${id} x-roles`);
    else t.notOk('x-roles' in found.op, `${id} has no x-roles (the original gives no Roles line)`);
  }
});

t.test('401 is declared where the original declares it, and not on the open operation', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    const responses = opById.get(id)?.op.responses ?? {};
    if (doc.declares401) t.ok('401' in responses, `${id} declares 401`);
    if (id === UNAUTHENTICATED) t.notOk('401' in responses, `${id} needs no credentials and declares no 401`);
  }
});

t.test("of the original's operations, 403 is declared only on DeleteResource and CreateResourceType", async (t) => {
  for (const o of ops.filter((o) => o.op['x-extension'] !== true)) {
    const expected = STATUS_403_ONLY_ON.includes(o.operationId);
    t.equal('403' in (o.op.responses ?? {}), expected, `${o.operationId} ${expected ? 'declares' : 'does not declare'} 403`);
  }
});

t.test("a company's grants: listed by its administrators who read or write, revoked by those who write, never over MCP", async (t) => {
  const READ_ROLES = ['bookingsupplier-administrator-read', 'bookingsupplier-administrator-write', 'superadmin'];
  const WRITE_ROLES = ['bookingsupplier-administrator-write', 'superadmin'];
  for (const [id, roles] of [['McpGrantQuery', READ_ROLES], ['DeleteMcpGrant', WRITE_ROLES]] as const) {
    const op = opById.get(id)?.op ?? {};
    t.strictSame(op['x-roles'], roles, `${id} x-roles`);
    t.equal(op['x-extension'], true, `${id} is an extension`);
    t.equal(op['x-mcp'], false, `${id} is no MCP tool`);
    t.ok('403' in (op.responses ?? {}), `${id} declares 403: a role or a company refused is Forbidden`);
  }
  t.ok('404' in (opById.get('DeleteMcpGrant')?.op.responses ?? {}), "DeleteMcpGrant declares 404: another company's grant is not found");
});

t.test('404 is declared on DeleteTag', async (t) => {
  for (const id of STATUS_404_ON) t.ok('404' in (opById.get(id)?.op.responses ?? {}), `${id} declares 404`);
});

t.test('409 is declared on DeleteResource', async (t) => {
  for (const id of STATUS_409_ON) t.ok('409' in (opById.get(id)?.op.responses ?? {}), `${id} declares 409`);
});

t.test('every 4xx and default response uses the ErrorResponse schema (an object with a ResponseStatus)', async (t) => {
  const errorResponse = deref(pointer('#/components/schemas/ErrorResponse'));
  t.equal(errorResponse.type, 'object', 'ErrorResponse is an object');
  t.strictSame(Object.keys(errorResponse.properties ?? {}), ['ResponseStatus'], 'ErrorResponse carries a ResponseStatus');
  t.ok(isRequired(errorResponse, 'ResponseStatus'), 'ResponseStatus is required in ErrorResponse');
  const rs = deref(errorResponse.properties?.ResponseStatus);
  t.strictSame(fieldSetDiff(rs ?? {}, RESPONSE_OBJECTS.ResponseStatus!), { missing: [], extra: [] }, 'its ResponseStatus has the original\'s fields');
  for (const o of ops) {
    for (const [status, raw] of Object.entries((o.op.responses ?? {}) as Obj)) {
      if (!/^4(\d\d|XX)$/.test(status) && status !== 'default') continue;
      const response = deref(raw);
      const schema = response?.content?.['application/json']?.schema;
      t.ok(schema, `${o.operationId} ${status} has an application/json schema`);
      if (!schema) continue;
      t.equal(deref(schema), errorResponse, `${o.operationId} ${status} is ErrorResponse`);
    }
  }
});
