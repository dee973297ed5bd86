import accepts from '@fastify/accepts';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { contentDisposition, parseCsvBody, toCsv } from '../http/csv.js';
import { badRequest } from '../http/errors.js';
import { negotiateFormat } from '../http/negotiation.js';
import { requestMeta, selectedFields } from '../http/servicestack-binding.js';
import { utf8Body } from '../http/utf8.js';
import { routeContract } from './route-contract.js';

/**
 * JSON and ServiceStack-style CSV (docs/decisions.md, "Wire format"): the answer's format is
 * negotiated first thing, so every later error is written in it too; `text/csv` request
 * bodies of the operations marked `x-csv` are parsed into fields and validated like JSON ones.
 */
export const formatsPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(accepts);
    app.decorateRequest('format', 'json');
    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.config.ownMediaTypes) return;
      request.format = negotiateFormat(request);
      // `format` is matched case-insensitively; the contract's enum then sees its own spelling.
      const query = request.query as Record<string, unknown>;
      if (typeof query.format === 'string') query.format = request.format;
    });
    // Fastify validates a body by its media type, and the contract declares only JSON
    // (x-csv adds CSV): a CSV body gets the JSON body's schema.
    app.addHook('onRoute', (routeOptions: RouteOptions) => {
      const content = (routeOptions.schema as { body?: { content?: Record<string, object> } } | undefined)?.body?.content;
      const json = content?.['application/json'];
      if (json && !content['text/csv'] && routeContract(routeOptions.schema)?.csv) content['text/csv'] = { ...json };
    });
    app.addContentTypeParser('text/csv', { parseAs: 'buffer' }, (_request, body, done) => {
      let text: string;
      try {
        text = utf8Body(body as Buffer);
      } catch (err) {
        return done(err as Error);
      }
      try {
        done(null, parseCsvBody(text));
      } catch (err) {
        done(badRequest('SerializationException', (err as Error).message));
      }
    });
  },
  { name: 'formats' },
);

/** Each item with only the `selected` fields. */
function narrowed(result: unknown, selected: readonly string[]): unknown {
  const envelope = result as { Results?: unknown };
  if (!Array.isArray(envelope.Results)) return result;
  envelope.Results = envelope.Results.map((item: Record<string, unknown>) => {
    const kept: Record<string, unknown> = {};
    for (const name of selected) if (Object.hasOwn(item, name)) kept[name] = item[name];
    return kept;
  });
  return result;
}

/**
 * An operation's answer in the negotiated format; `columns` are its schema's fields (a
 * query's: its items'). Where the operation declares them, `Fields` fills only the fields
 * it names, in JSON and CSV alike, and `Meta` is echoed; elsewhere they are unknown names,
 * ignored (docs/decisions.md, "Wire format" and "Layers point down").
 */
export function answer(request: FastifyRequest, reply: FastifyReply, operationId: string, columns: string[] | undefined, result: unknown) {
  const query = request.query as { Fields?: unknown; Meta?: Record<string, string> | string };
  let selected: string[] | undefined;
  if (query.Fields !== undefined || query.Meta !== undefined) {
    const declared = request.routeOptions.config.route?.query?.properties ?? {};
    if (typeof query.Fields === 'string' && columns && declared.Fields) selected = selectedFields(query.Fields, columns);
    const meta = query.Meta !== undefined && declared.Meta ? requestMeta(query.Meta) : undefined;
    if (meta) (result as { Meta?: Record<string, string> }).Meta = meta;
  }
  if (request.format !== 'csv') return selected ? narrowed(result, selected) : result;
  reply.type('text/csv; charset=utf-8').header('content-disposition', contentDisposition(operationId));
  return toCsv(result, selected ?? columns);
}
