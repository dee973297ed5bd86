import accepts from '@fastify/accepts';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { contentDisposition, parseCsvBody, toCsv } from '../http/csv.js';
import { badRequest } from '../http/errors.js';
import { negotiateFormat } from '../http/negotiation.js';
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

/** `Fields` narrows the CSV columns as it narrows the JSON fields (unknown names ignored). */
function selectColumns(columns: string[] | undefined, fields: unknown): string[] | undefined {
  if (!columns || typeof fields !== 'string') return columns;
  const wanted = new Set(fields.split(',').map((f) => f.trim().toLowerCase()));
  const kept = columns.filter((c) => wanted.has(c.toLowerCase()));
  return kept.length > 0 ? kept : columns;
}

/** An operation's answer in the negotiated format; `columns` are its schema's fields. */
export function answer(request: FastifyRequest, reply: FastifyReply, operationId: string, columns: string[] | undefined, result: unknown) {
  if (request.format !== 'csv') return result;
  reply.type('text/csv; charset=utf-8').header('content-disposition', contentDisposition(operationId));
  return toCsv(result, selectColumns(columns, (request.query as { Fields?: unknown }).Fields));
}
