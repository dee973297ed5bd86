import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createAuthenticator } from '../auth/authenticate.js';
import { contract } from '../contract/contract.js';
import { ApiError } from '../contract/errors.js';
import { OAUTH_SCOPES, scopeAdmits } from '../domain/caller.js';
import { countTokens, Metering } from '../mcp/metering.js';
import { createMcpServer, type McpCaller, type ToolCalls } from '../mcp/server.js';
import { mcpTools } from '../mcp/tools.js';
import { fromWebResponse, isToolsCall, toWebRequest } from '../mcp/web.js';
import { callOf } from './routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** loads now what the first MCP request would load: the SDK, its server, the tokenizer */
    warmUpMcp(): Promise<void>;
  }
  interface FastifyContextConfig {
    /** the route answers in media types of its own (MCP's JSON-RPC and event streams): no format is negotiated for it */
    ownMediaTypes?: boolean;
  }
}

const PATH = '/mcp';
const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** The origin clients reached this server at, as the request names it (a Host that names none: this machine). */
function originOf(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return `${request.protocol}://localhost`;
  }
}

/**
 * The host names of the browser origins allowed to call the MCP endpoint, against DNS
 * rebinding (undefined: any): those CORS allows (CORS_ORIGINS, `*` for any), beside pages on
 * this machine (localhost, 127.0.0.1, [::1]), compared by host name as the SDK's validator
 * does. A page whose name was pointed at this server carries its own name as its Origin and
 * is refused; a request without an Origin comes from no browser page.
 */
function allowedOrigins(corsOrigins: string): string[] | undefined {
  const listed = corsOrigins.split(',').map((o) => o.trim()).filter(Boolean);
  if (listed.includes('*')) return undefined;
  return listed.flatMap((origin) => {
    try {
      return [new URL(origin).hostname];
    } catch {
      return [];
    }
  });
}

/** The SDK, loaded by the first MCP request: a node serving only HTTP never holds it. */
let sdk: Promise<typeof import('@modelcontextprotocol/server')> | undefined;
const loadSdk = () => (sdk ??= import('@modelcontextprotocol/server'));

/**
 * The public MCP server (docs/decisions.md, "The MCP server"): `POST /mcp`, MCP over
 * Streamable HTTP and stateless, its tools generated from the contract; `GET` and `DELETE`
 * answer 405 (no session and no stream to open or end). The caller's bearer token is the
 * API's; without a valid one the answer is 401 pointing at the Protected Resource Metadata
 * (RFC 9728), which is served without credentials and names the identity provider when one
 * is configured. A `tools/call` is counted by the rate limits once, as the operation it runs;
 * any other message counts as a request of its own.
 */
export const mcpPlugin = fp(
  async (app: FastifyInstance) => {
    const tools = mcpTools(contract().document);
    const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
    const calls: ToolCalls = { execute: app.execute, metering: new Metering(app.store, app.config), metrics: app.metrics, log: app.log };
    let handler: Promise<McpHttpHandler> | undefined;
    app.addHook('onClose', async () => (await handler)?.close());
    // A starting node calls it before it says it is ready, so that its first client does not
    // wait for these loads (docs/decisions.md, "Shedding on the node's own backlog").
    app.decorate('warmUpMcp', async () => {
      handler ??= createMcpServer(calls, tools, byName);
      await Promise.all([handler, countTokens('')]);
    });
    const authenticate = createAuthenticator(app.config);
    const origins = allowedOrigins(app.config.CORS_ORIGINS);
    const limit = app.config.RATE_LIMIT_MAX > 0 ? app.rateLimit() : undefined;

    // The resource's origin: the issuer where OAuth serves (no authorization server is loaded
    // for it), else as the request names it.
    const metadataUrl = async (request: FastifyRequest, issuer = app.oauthIssuer?.(request)) =>
      (await loadSdk()).getOAuthProtectedResourceMetadataUrl(new URL(PATH, issuer ?? originOf(request)));

    const challenge = async (request: FastifyRequest, error: ApiError) => {
      const issuer = app.oauthIssuer?.(request);
      const scope = issuer !== undefined ? `, scope="${OAUTH_SCOPES.join(' ')}"` : '';
      return new ApiError(401, error.errorCode, error.message, [], { 'www-authenticate': `Bearer resource_metadata="${await metadataUrl(request, issuer)}"${scope}` });
    };

    /** A tools/call outside the token's scopes is refused here, before JSON-RPC runs, and metered nowhere. */
    const checkScope = async (request: FastifyRequest) => {
      const scopes = request.caller?.scopes;
      const name = isToolsCall(request.body) ? (request.body as { params?: { name?: unknown } }).params?.name : undefined;
      const tool = typeof name === 'string' ? byName.get(name) : undefined;
      if (!scopes || !tool || scopeAdmits(request.caller!, tool.facts.scope)) return;
      const needed = tool.facts.scope;
      throw new ApiError(403, 'Forbidden', `${name} needs the scope ${needed}, which this token was not granted.`, [], {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${await metadataUrl(request)}"`,
      });
    };

    /** The API's bearer token, or where OAuth serves, an access token of this node's authorization server. */
    const authenticateMcp = async (request: FastifyRequest) => {
      try {
        return await authenticate(request.headers.authorization);
      } catch (err) {
        const caller = await app.oauthCaller?.(request);
        if (caller) return caller;
        throw err;
      }
    };

    const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const { validateOriginHeader, localhostAllowedOrigins } = await loadSdk();
        if (origins && !validateOriginHeader(request.headers.origin, [...localhostAllowedOrigins(), ...origins]).ok) {
          throw new ApiError(403, 'Forbidden', 'The MCP endpoint does not accept requests from this origin.');
        }
        request.caller = await authenticateMcp(request);
      } catch (err) {
        // A refused request counts against the rate limit as any other request does.
        if (limit) await limit.call(app, request, reply);
        throw err instanceof ApiError && err.statusCode === 401 ? await challenge(request, err) : err;
      }
    };

    app.route({
      method: 'POST',
      url: PATH,
      config: { rateLimit: false, ownMediaTypes: true },
      onRequest: authorize,
      preHandler: async (request, reply) => {
        await checkScope(request);
        if (limit && !isToolsCall(request.body)) await limit.call(app, request, reply);
      },
      handler: async (request, reply) => {
        const caller = request.caller!;
        const authorization = request.headers.authorization!;
        const mcpCaller: McpCaller = {
          caller,
          call: () => callOf(app, request, reply, false),
          serialize: (schema, result) => reply.compileSerializationSchema(schema, '200', 'application/json')(result as Record<string, unknown>),
        };
        handler ??= createMcpServer(calls, tools, byName);
        const response = await (await handler).fetch(toWebRequest(request), {
          // The SDK hands this, as it is, to the per-request server (server.ts).
          authInfo: { token: authorization.replace(/^Bearer\s+/i, ''), clientId: caller.sub ?? '', scopes: [...caller.roles], extra: { mcpCaller } },
          parsedBody: request.body,
        });
        return fromWebResponse(response, reply);
      },
    });

    const notAllowed = async () => {
      throw new ApiError(405, 'MethodNotAllowed', `This MCP server is stateless: use POST on ${PATH}.`, [], { allow: 'POST' });
    };
    app.route({ method: ['GET', 'DELETE'], url: PATH, config: { ownMediaTypes: true }, handler: notAllowed });

    app.get(METADATA_PATH, async (request, reply) => {
      const oauthIssuer = app.oauthIssuer?.(request);
      const origin = oauthIssuer ?? originOf(request);
      const issuer = oauthIssuer ?? app.config.AUTH_ISSUER;
      return reply.header('access-control-allow-origin', '*').send({
        resource: new URL(PATH, origin).href,
        ...(issuer ? { authorization_servers: [issuer] } : {}),
        ...(oauthIssuer ? { scopes_supported: [...OAUTH_SCOPES] } : {}),
        bearer_methods_supported: ['header'],
        resource_name: 'Booking Administration API',
        resource_documentation: new URL('/docs', origin).href,
      });
    });
  },
  { name: 'mcp', dependencies: ['store', 'protection', 'executor'] },
);
