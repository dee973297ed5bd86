import accepts from '@fastify/accepts';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseCsvBody } from '../http/csv.js';
import { badRequest } from '../http/errors.js';
import { negotiateFormat } from '../http/negotiation.js';
import { utf8Body } from '../http/utf8.js';

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
