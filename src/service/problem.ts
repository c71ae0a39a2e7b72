/**
 * Every error answer is `application/problem+json` (RFC 9457): `type`, `title`, `status`,
 * `detail`, and for bad input a per-field `errors` list (`{ path, message }`, like zod's issues).
 * Handlers throw a {@link Problem}; the one error handler turns anything else (fastify's own
 * errors, multipart limits, typed PreflightErrors) into one.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PreflightError } from '../errors.js';
import { formatPath } from '../profile/load.js';

/** Problem codes are kebab-case, as finding codes are. */
export const PROBLEM_CODE_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * The one spelling of a problem code: kebab-case. A library error code (`ERR_UNKNOWN_SKU`, the
 * spelling problem bodies used for them before 0.2.0) becomes `unknown-sku`; a code already in
 * kebab-case is returned as it is. Clients that stored old codes can pass them through this too.
 * @example problemCode('ERR_UNKNOWN_SKU') // 'unknown-sku'
 * @example problemCode('request-invalid') // 'request-invalid'
 */
export function problemCode(code: string): string {
  return /^ERR_[A-Z0-9_]+$/.test(code) ? code.slice(4).toLowerCase().replaceAll('_', '-') : code;
}

export const ProblemFieldSchema = z.strictObject({
  /** Where: a JSON path (`rows[0].sources[1].url`), a query parameter or a form field. */
  path: z.string(),
  message: z.string(),
  /** A source's preflight report, for an order source that did not pass. */
  report: z.unknown().optional(),
});

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    /** A stable code in kebab-case (`unknown-sku`, `upload-too-large`…); the `type` URI ends in it. */
    code: z.string().regex(PROBLEM_CODE_PATTERN),
    /**
     * Deprecated: the code's spelling before 0.2.0 (`ERR_UNKNOWN_SKU`), sent beside `code` for codes
     * that had another spelling, for 12 months from the 0.2.0 release. Match on `code`.
     */
    legacyCode: z.string().optional().meta({ deprecated: true }),
    errors: z.array(ProblemFieldSchema).optional(),
  })
  .loose();
export type ProblemBody = z.infer<typeof ProblemSchema>;
export type ProblemField = z.infer<typeof ProblemFieldSchema>;

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  409: 'Conflict',
  413: 'Content too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  501: 'Not implemented',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

/** The RFC 9110 reason phrase a problem's `title` gives for its status. */
export function problemTitle(status: number): string {
  return TITLES[status] ?? 'Error';
}

/** A problem to answer with. `code` is stable and becomes the `type` URI's last segment. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: { errors?: ProblemField[]; headers?: Record<string, string>; [key: string]: unknown } = {},
  ) {
    super(detail);
  }
}

/** Per-field errors from a zod error, with an optional prefix (`query`, `body`…). */
export function zodFields(error: z.ZodError, prefix = ''): ProblemField[] {
  return error.issues.map((i) => ({ path: [prefix, formatPath(i.path)].filter(Boolean).join('.') || prefix || '(body)', message: i.message }));
}

/** A request part failed its schema. */
export class RequestInvalid extends Problem {
  constructor(error: z.ZodError, part: string) {
    const errors = zodFields(error, part === 'body' ? '' : part);
    super(400, 'request-invalid', `The request's ${part} is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
  }
}

export function problemBody(status: number, given: string, detail: string, request: FastifyRequest, extra: Record<string, unknown> = {}): ProblemBody {
  const { headers: _h, ...rest } = extra;
  const code = problemCode(given);
  return {
    type: `urn:print-preflight:problem:${code}`,
    title: problemTitle(status),
    status,
    detail,
    instance: request.url.split('?')[0],
    code,
    ...(code !== given ? { legacyCode: given } : {}),
    ...rest,
  };
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, problem: Problem): FastifyReply {
  for (const [k, v] of Object.entries(problem.extra.headers ?? {})) reply.header(k, v);
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send(problemBody(problem.status, problem.code, problem.detail, request, problem.extra));
}

/** File system errors that mean the data folder cannot take a write now. */
const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT']);
const STORAGE_UNAVAILABLE = new Set(['EROFS', 'EIO']);

/** Maps any error to a problem. */
export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  if (errno && STORAGE_FULL.has(errno)) return new Problem(503, 'storage-full', 'The data folder is full; retry later.', { headers: { 'Retry-After': '60' } });
  if (errno && STORAGE_UNAVAILABLE.has(errno)) return new Problem(503, 'storage-unavailable', `The data folder cannot be written (${errno}); retry later.`, { headers: { 'Retry-After': '60' } });
  if (error instanceof PreflightError) {
    if (error.code.startsWith('ERR_UNKNOWN_'))
      return new Problem(422, error.code, error.message, {
        errors: [{ path: error.code === 'ERR_UNKNOWN_SKU' ? 'sku' : error.code === 'ERR_UNKNOWN_VARIANT' ? 'variant' : 'product', message: error.message }],
      });
    if (error.code === 'ERR_INVALID_ARGUMENT') return new Problem(400, error.code, error.message);
    if (error.code === 'ERR_STORAGE_UNAVAILABLE') return new Problem(503, 'storage-unavailable', `${error.message} Retry later.`, { headers: { 'Retry-After': '10' } });
    return new Problem(500, error.code, error.message);
  }
  const e = error as FastifyError & { part?: string };
  switch (e.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new Problem(413, 'upload-too-large', e.message, { headers: { Connection: 'close' } });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem(413, 'body-too-large', 'A JSON body may be at most 1 MiB; send files as multipart uploads or URLs.', { headers: { Connection: 'close' } });
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new Problem(413, 'too-many-parts', `${e.message}: send one file part and the fields sku, or product and variant`, { headers: { Connection: 'close' } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new Problem(415, 'unsupported-media-type', 'Send multipart/form-data (a file part and sku or product + variant fields) or application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Problem(400, 'body-invalid', e.message);
    case 'FST_PROTO_VIOLATION':
    case 'FST_MP_PREMATURE_CLOSE':
      return new Problem(400, 'body-invalid', e.message);
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new Problem(400, 'url-invalid', e.message);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new Problem(414, 'uri-too-long', 'A segment of the URL is longer than this server reads (8 KiB).');
  }
  if ((error as { name?: string }).name === 'QueueUnavailableError' || e.code === 'queue-unavailable') {
    return new Problem(503, 'queue-unavailable', `${e.message}`, { headers: { 'Retry-After': '5' } });
  }
  if (e.statusCode === 400 && e.message && /JSON/i.test(e.message)) return new Problem(400, 'body-invalid', e.message);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new Problem(e.statusCode, 'request-invalid', e.message);
  return new Problem(500, 'internal', 'The server failed while answering; the request id in the logs tells what happened.');
}

/**
 * A whole HTTP answer, written straight to a socket, for requests the HTTP parser refused before
 * fastify saw them (malformed, headers too large, too slow): still problem+json, with the same
 * headers as every other answer, and the connection closed.
 */
export function rawProblem(status: number, code: string, detail: string, headers: Record<string, string>): string {
  const body = JSON.stringify({ type: `urn:print-preflight:problem:${code}`, title: TITLES[status] ?? 'Error', status, detail, code });
  const lines = [
    `HTTP/1.1 ${status} ${TITLES[status] ?? 'Error'}`,
    'Content-Type: application/problem+json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** What the HTTP parser's refusal of a request (a `clientError`) is, as a problem; null when no answer can be written. */
export function clientErrorProblem(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): Problem | null {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return null;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new Problem(408, 'request-timeout', 'The request did not arrive whole in time (headers, or the whole request); send it again, faster.');
    case 'HPE_HEADER_OVERFLOW': {
      // The request line alone over the limit: the URL is what is too long.
      const head = error.rawPacket ? error.rawPacket.subarray(0, 64 * 1024).toString('latin1') : '';
      const nl = head.indexOf('\n');
      const requestLine = nl < 0 ? /^[A-Z]+ \S/.test(head) : /^[A-Z]+ \S+ HTTP\/1\.\d\r?$/.test(head.slice(0, nl)) && nl > 8 * 1024;
      if (requestLine) return new Problem(414, 'uri-too-long', 'The request line is longer than this server reads; shorten the URL.');
      return new Problem(431, 'headers-too-large', 'The request headers are larger than this server reads (16 KiB in all); send fewer or shorter headers.');
    }
    case 'HPE_INVALID_METHOD':
      return new Problem(400, 'request-malformed', 'The request method is not one HTTP knows.');
    default:
      return new Problem(400, 'request-malformed', `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`);
  }
}
