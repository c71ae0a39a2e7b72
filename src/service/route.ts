/**
 * Routes are declared once, with zod schemas: the same declaration registers the fastify route
 * (its params, query and body validated by the zod schema, parsed values handed to the handler)
 * and describes it in the OpenAPI document. Nothing can drift between the two.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { RequestInvalid } from './problem.js';

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  /** Content type (default application/json; problems are application/problem+json). */
  type?: string;
  headers?: Record<string, string>;
}

export interface RouteDoc<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'DELETE';
  /** fastify syntax: `/v1/checks/:id` */
  url: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Needs an API key (when the server has any). */
  auth: boolean;
  params?: P;
  query?: Q;
  /** A JSON body, validated before the handler. */
  body?: B;
  /** Request bodies documented but parsed by the handler (multipart), by content type. */
  requestBodies?: Record<string, z.ZodType>;
  responses: Record<number, ResponseDoc>;
}

type Input<S> = S extends z.ZodType ? z.output<S> : undefined;

export type Handler<P, Q, B> = (
  request: FastifyRequest & { params: Input<P>; query: Input<Q>; body: Input<B> },
  reply: FastifyReply,
) => Promise<unknown>;

/** The zod schema behind each JSON Schema object given to fastify. */
const zodOf = new WeakMap<object, { schema: z.ZodType; part: string }>();

/** JSON Schema (draft 2020-12, without `$schema`) of a zod schema, as requests see it. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Record<string, unknown>;
  return rest;
}

/** The route part's JSON Schema for fastify (and anything that reads its routes); zod validates. */
function marker(schema: z.ZodType, part: string): object {
  const obj = jsonSchema(schema);
  zodOf.set(obj, { schema, part });
  return obj;
}

/** Makes fastify validate with the zod schema of each route part. */
export function useZodValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema }) => {
    const entry = zodOf.get(schema as object);
    if (!entry) return () => true;
    return (data: unknown) => {
      const r = entry.schema.safeParse(data ?? {});
      return r.success ? { value: r.data } : { error: new RequestInvalid(r.error, entry.part) };
    };
  });
}

/**
 * Answers any route can give, whatever it does: the HTTP parser's refusals, a request too slow or
 * too large, a failure, a server shutting down. All problem+json, with the same headers.
 */
export const COMMON_RESPONSES: Record<number, ResponseDoc> = {
  400: { description: 'Not valid HTTP, or a field is missing or malformed (`errors` lists each)' },
  408: { description: 'The request did not arrive whole in time' },
  414: { description: 'The URL is longer than 8 KiB' },
  431: { description: 'The headers are larger than 16 KiB' },
  500: { description: 'The server failed; the request id (`x-request-id`) finds it in the logs' },
  503: { description: 'The server is shutting down (or cannot take work now)', headers: { 'Retry-After': 'seconds' } },
};

/** Requests with a body: the JSON body limit. */
const BODY_RESPONSES: Record<number, ResponseDoc> = {
  413: { description: 'The body is over its limit (1 MiB of JSON; uploads: the upload limit)' },
};

/** Registers a route and records its description (its own answers, then the common ones) for the OpenAPI document. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  app: FastifyInstance,
  table: RouteDoc[],
  doc: RouteDoc<P, Q, B>,
  handler: Handler<P, Q, B>,
): void {
  const responses = { ...COMMON_RESPONSES, ...(doc.method === 'POST' ? BODY_RESPONSES : {}), ...doc.responses };
  table.push({ ...doc, responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))) } as unknown as RouteDoc);
  const schema: Record<string, object> = {};
  if (doc.params) schema.params = marker(doc.params, 'path');
  if (doc.query) schema.querystring = marker(doc.query, 'query');
  if (doc.body) schema.body = marker(doc.body, 'body');
  app.route({
    method: doc.method,
    url: doc.url,
    schema,
    config: { auth: doc.auth },
    handler: handler as never,
  });
}
