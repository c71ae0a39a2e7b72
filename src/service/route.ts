/**
 * Routes are declared once, with zod schemas: the same declaration registers the fastify route
 * (its params, query and body validated by the zod schema, parsed values handed to the handler)
 * and describes it in the OpenAPI document. Nothing can drift between the two.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { REQUEST_BUDGET_MS, withStorageBudget } from '../storage/budget.js';
import { toJsonSchema } from '../util/json-schema.js';
import { RequestInvalid, type ProblemCode } from './problem.js';

export interface ResponseDoc {
  description: string;
  /** The JSON body (problems default to the Problem schema). */
  schema?: z.ZodType;
  /** Content type(s) of the body (default application/json; problems are application/problem+json). */
  type?: string | string[];
  /** Response headers and what they hold. */
  headers?: Record<string, string>;
  /** For a problem: the stable `code`s this status carries (documented, and checked in the tests). */
  codes?: ProblemCode[];
  /** An example body (must be valid against the schema: the linters check it). */
  example?: unknown;
}

export interface RequestBodyDoc {
  schema: z.ZodType;
  example?: unknown;
  /** Per multipart part: its content type (`{ file: 'application/pdf' }`). */
  partTypes?: Record<string, string>;
}

export interface RouteDoc<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'DELETE';
  /** fastify syntax: `/v1/checks/:id` */
  url: string;
  /** Stable and unique: the method name generated clients give the operation. */
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Needs an API key (when the server has any). */
  auth: boolean;
  params?: P;
  query?: Q;
  /** A JSON body, validated before the handler. */
  body?: B;
  /** Request bodies documented but parsed by the handler (multipart), by content type. */
  requestBodies?: Record<string, RequestBodyDoc>;
  /**
   * Every status this route's handler answers with. Statuses any route of its kind can answer
   * (unreadable requests, API keys, bodies, shutting down: {@link commonResponses}) are added to it.
   */
  responses: Record<number, ResponseDoc>;
}

/**
 * The statuses a route answers besides its own, from what it is: every route can get a malformed
 * URL (400), fail inside (500) or meet a server shutting down (503); a route behind API keys answers
 * 401; a route that takes a body refuses one too large (413) or of another type (415).
 */
export function commonResponses(doc: RouteDoc, server: { apiKeys: boolean }): Record<number, ResponseDoc> {
  const takesBody = doc.method === 'POST';
  const validated = Boolean(doc.params || doc.query || doc.body || doc.requestBodies);
  const out: Record<number, ResponseDoc> = {
    400: {
      description: validated
        ? 'Not valid HTTP, or the request cannot be read, or a parameter or field fails its schema (`errors` lists each)'
        : 'Not valid HTTP, or the request cannot be read (a malformed URL)',
      codes: ['request-malformed', 'url-invalid', 'client-closed-request', ...(validated ? (['request-invalid'] as const) : []), ...(takesBody ? (['body-invalid'] as const) : [])],
    },
    408: { description: 'The request did not arrive whole in time', codes: ['request-timeout'] },
    414: { description: 'The URL is longer than 8 KiB', codes: ['uri-too-long'] },
    431: { description: 'The headers are larger than 16 KiB', codes: ['headers-too-large'] },
    500: { description: 'The server failed while answering; the request id (`x-request-id`) finds it in the logs' },
    503: {
      description: 'The server is shutting down, or its storage cannot be reached (object storage away): retry (another instance, or this one after its restart)',
      codes: ['shutting-down', 'storage-unavailable'],
      headers: { 'Retry-After': 'seconds to wait' },
    },
  };
  if (doc.auth && server.apiKeys) {
    out[401] = { description: 'No API key, or one this server does not accept', codes: ['api-key-missing', 'api-key-unknown'], headers: { 'WWW-Authenticate': 'Bearer realm="print-preflight"' } };
  }
  if (takesBody) {
    out[413] = { description: 'The body is over its size limit (a JSON body: 1 MiB)', codes: ['body-too-large'] };
    out[415] = { description: 'The body is of a type this route does not take', codes: ['unsupported-media-type'] };
  }
  return out;
}

/** A route's own responses over the common ones: its description wins, codes and headers add up. */
export function allResponses(doc: RouteDoc, server: { apiKeys: boolean }): Record<number, ResponseDoc> {
  const out: Record<number, ResponseDoc> = { ...commonResponses(doc, server) };
  for (const [key, own] of Object.entries(doc.responses)) {
    const status = Number(key);
    const common = out[status];
    out[status] = common
      ? {
          ...common,
          ...own,
          ...(common.codes || own.codes ? { codes: [...new Set([...(own.codes ?? []), ...(common.codes ?? [])])] } : {}),
          ...(common.headers || own.headers ? { headers: { ...common.headers, ...own.headers } } : {}),
        }
      : own;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

type Input<S> = S extends z.ZodType ? z.output<S> : undefined;

export type Handler<P, Q, B> = (request: FastifyRequest & { params: Input<P>; query: Input<Q>; body: Input<B> }, reply: FastifyReply) => Promise<unknown>;

/** The zod schema behind each JSON Schema object given to fastify. */
const zodOf = new WeakMap<object, { schema: z.ZodType; part: string }>();

/** JSON Schema (draft 2020-12, without `$schema`) of a zod schema, as requests see it. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _s, ...rest } = toJsonSchema(schema, io);
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

/** Registers a route and records its description for the OpenAPI document (common answers are added there: {@link allResponses}). */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(app: FastifyInstance, table: RouteDoc[], doc: RouteDoc<P, Q, B>, handler: Handler<P, Q, B>): void {
  table.push(doc as unknown as RouteDoc);
  const schema: Record<string, object> = {};
  if (doc.params) schema.params = marker(doc.params, 'path');
  if (doc.query) schema.querystring = marker(doc.query, 'query');
  if (doc.body) schema.body = marker(doc.body, 'body');
  app.route({
    method: doc.method,
    url: doc.url,
    schema,
    config: { auth: doc.auth },
    // Storage calls made while answering get the request's budget: an outage is a 503 at once, not a hang.
    handler: ((request: never, reply: never) => withStorageBudget(REQUEST_BUDGET_MS, () => (handler as (a: never, b: never) => Promise<unknown>)(request, reply))) as never,
  });
}
