/**
 * Every error answer is `application/problem+json` (RFC 9457): `type`, `title`, `status`,
 * `detail`, and for bad input a per-field `errors` list (`{ path, message }`, like zod's issues).
 * Handlers throw a {@link Problem}; the one error handler turns anything else (fastify's own
 * errors, multipart limits, typed PreflightErrors) into one.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PreflightError, type ErrorCode } from '../errors.js';
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

/** One problem the service can answer: its HTTP status, its title, and when it is sent. */
export interface ProblemEntry {
  status: number;
  /** The `title` of the body: the status's reason phrase (RFC 9110), the same for every code of a status. */
  title: string;
  /** When it is sent (docs/service.md lists the same). */
  when: string;
}

const entry = (status: keyof typeof TITLES, when: string): ProblemEntry => ({ status, title: TITLES[status], when });

const TITLES = {
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
} as const;

/**
 * Every problem code the service can send, with its status and title: the one table (fastify's
 * errors table is the model). Routes throw by its keys — a misspelt code does not compile — and a
 * test holds it against docs/service.md and the OpenAPI document.
 */
export const PROBLEMS = {
  'request-invalid': entry(400, 'a parameter, a field or the body does not match its schema (`errors` lists each); also the status fastify gave for another refusal of the request'),
  'request-malformed': entry(400, 'the request is not valid HTTP/1.1 (the HTTP parser refused it)'),
  'url-invalid': entry(400, 'the URL cannot be decoded'),
  'client-closed-request': entry(400, 'the client closed the connection before the request was whole'),
  'body-invalid': entry(400, 'the body cannot be read: malformed JSON, a wrong Content-Length, a multipart stream cut short'),
  'multipart-invalid': entry(400, 'the multipart body cannot be read (no boundary, a malformed part)'),
  'invalid-argument': entry(400, 'a value the library refused (`ERR_INVALID_ARGUMENT`)'),
  'api-key-missing': entry(401, 'no API key was sent'),
  'api-key-unknown': entry(401, 'the API key is not one this server accepts'),
  'route-not-found': entry(404, 'no route has this path'),
  'check-not-found': entry(404, "no such check of this tenant (never existed, another tenant's, deleted, or removed by retention), or it has no such report"),
  'preview-not-found': entry(404, 'the check has no preview of that page'),
  'mockup-not-found': entry(404, 'the check has no mockup of that layer'),
  'approval-not-found': entry(404, 'no such approval: a wrong link, or the check was deleted'),
  'file-not-found': entry(404, 'no such fixed file, or its fix is not approved'),
  'order-not-found': entry(404, 'no order of this tenant with that number references a fixed file'),
  'method-not-allowed': entry(405, 'the path answers other methods (`Allow` names them)'),
  'request-timeout': entry(408, 'the request did not arrive whole in time'),
  'check-not-finished': entry(409, 'the check is queued or running'),
  'check-failed': entry(409, 'the check ended in an error and has no report'),
  'check-not-awaiting-approval': entry(409, 'the check does not wait for approval'),
  'upload-too-large': entry(413, 'the upload is over `--max-upload-mb` (refused as it streams)'),
  'body-too-large': entry(413, 'a JSON body is over 1 MiB'),
  'too-many-parts': entry(413, 'the multipart body has more parts, files or fields than a check takes'),
  'order-too-many-sources': entry(413, 'an order draft names more sources than this server checks per draft'),
  'uri-too-long': entry(414, 'the URL is longer than 8 KiB'),
  'unsupported-media-type': entry(415, 'the body is neither multipart/form-data nor JSON'),
  'unknown-sku': entry(422, 'no product has this SKU (`ERR_UNKNOWN_SKU`)'),
  'unknown-product': entry(422, 'no such product (`ERR_UNKNOWN_PRODUCT`)'),
  'unknown-variant': entry(422, 'the product has no such variant (`ERR_UNKNOWN_VARIANT`)'),
  'layer-not-image': entry(422, 'a `layer.<id>` part is not a PNG, JPEG, TIFF, WebP or PDF file'),
  'layer-too-large': entry(422, "a `layer.<id>` image is over the product's `maxImagePixels` (15,000 by default) on a side (`ERR_LAYER_TOO_LARGE`)"),
  'layer-unreadable': entry(422, 'a `layer.<id>` image cannot be decoded: cut short, damaged behind the right first bytes, or its decoder stopped on it (`ERR_LAYER_UNREADABLE`)'),
  'limits-not-allowed': entry(422, "the request's limits or severities would loosen the server's profile"),
  'callback-not-configured': entry(422, 'a callbackUrl was given but the server signs no callbacks (no `--callback-secret`)'),
  'callback-url-refused': entry(422, 'the callbackUrl cannot be used (scheme, host, or an address it resolves to)'),
  'order-invalid': entry(422, 'the order cannot be built: fields or sources fail (`errors` lists each)'),
  'fix-not-approved': entry(422, 'a source names a fixed file whose fix is not approved'),
  'service-validation': entry(422, 'the order service refused the order as invalid (`ERR_SERVICE_VALIDATION`)'),
  'too-many-queued': entry(429, 'the tenant has as many checks waiting as it may (`Retry-After`)'),
  'too-many-submissions': entry(429, 'the tenant submitted as many checks this minute as it may (`Retry-After`)'),
  'service-rate-limited': entry(429, 'the order service is rate-limiting this server (`ERR_SERVICE_RATE_LIMITED`, `Retry-After`)'),
  'headers-too-large': entry(431, 'the request headers are over 16 KiB'),
  internal: entry(500, 'the server failed while answering; the request id in the logs tells what happened'),
  'profile-invalid': entry(500, "the server's product profiles are invalid (`ERR_PROFILE_INVALID`)"),
  'input-unreadable': entry(500, 'a file the server kept cannot be read (`ERR_INPUT_UNREADABLE`)'),
  timeout: entry(500, 'a task ran past its time (`ERR_TIMEOUT`)'),
  'worker-crashed': entry(500, 'a worker of the pool stopped (`ERR_WORKER_CRASHED`)'),
  'pdf-damaged': entry(500, 'a file the server made cannot be read back (`ERR_PDF_DAMAGED`)'),
  aborted: entry(500, 'the work was cancelled (`ERR_ABORTED`)'),
  'missing-dependency': entry(500, 'a package the server needs is not installed (`ERR_MISSING_DEPENDENCY`)'),
  'order-service-not-configured': entry(501, 'the server forwards no orders (no `--order-service`)'),
  'public-url-not-configured': entry(501, 'a fixed file must be named in an order, but the server has no `--public-url`'),
  'service-auth': entry(502, 'the order service refused the credentials (`ERR_SERVICE_AUTH`)'),
  'service-permission': entry(502, 'the credentials lack the rights at the order service (`ERR_SERVICE_PERMISSION`)'),
  'service-not-found': entry(502, 'the order service has no such resource (`ERR_SERVICE_NOT_FOUND`)'),
  'service-server': entry(502, 'the order service failed (`ERR_SERVICE_SERVER`)'),
  'service-unreachable': entry(502, 'the order service did not answer (`ERR_SERVICE_UNREACHABLE`)'),
  'service-response': entry(502, 'the order service answered in a shape its spec does not give (`ERR_SERVICE_RESPONSE`)'),
  'shutting-down': entry(503, 'the server is shutting down (`Retry-After`)'),
  'storage-full': entry(503, 'the data folder is full, or has less free than `--min-free-mb` (`Retry-After`)'),
  'storage-unavailable': entry(503, 'the data folder or object storage cannot be written now (`Retry-After`)'),
  'queue-unavailable': entry(503, 'the queue cannot take checks now (`Retry-After`)'),
  'pool-unavailable': entry(503, 'the worker pool that probes layer images is closed: the server is stopping (`Retry-After`)'),
  unhealthy: entry(503, 'a readiness check failed; `checks` says which (`Retry-After`)'),
} as const satisfies Record<string, ProblemEntry>;

/** A problem code of {@link PROBLEMS}. */
export type ProblemCode = keyof typeof PROBLEMS;

/** Is this string a problem code of the table? */
export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(PROBLEMS, code);

/**
 * The problem a library error answers as. Typed by every error code: a new code does not compile
 * until it has its problem. The old spelling rides along as `legacyCode`, except for codes that
 * were kebab-case in problem bodies before 0.2.0.
 */
const ERROR_PROBLEMS: Record<ErrorCode, { code: ProblemCode; legacy: boolean }> = {
  ERR_INVALID_ARGUMENT: { code: 'invalid-argument', legacy: true },
  ERR_UNKNOWN_PRODUCT: { code: 'unknown-product', legacy: true },
  ERR_UNKNOWN_VARIANT: { code: 'unknown-variant', legacy: true },
  ERR_UNKNOWN_SKU: { code: 'unknown-sku', legacy: true },
  ERR_PROFILE_INVALID: { code: 'profile-invalid', legacy: true },
  ERR_INPUT_UNREADABLE: { code: 'input-unreadable', legacy: true },
  ERR_TIMEOUT: { code: 'timeout', legacy: true },
  ERR_WORKER_CRASHED: { code: 'worker-crashed', legacy: true },
  ERR_PDF_DAMAGED: { code: 'pdf-damaged', legacy: true },
  ERR_ABORTED: { code: 'aborted', legacy: true },
  ERR_ORDER_INVALID: { code: 'order-invalid', legacy: true },
  ERR_SERVICE_VALIDATION: { code: 'service-validation', legacy: true },
  ERR_SERVICE_AUTH: { code: 'service-auth', legacy: true },
  ERR_SERVICE_PERMISSION: { code: 'service-permission', legacy: true },
  ERR_SERVICE_NOT_FOUND: { code: 'service-not-found', legacy: true },
  ERR_SERVICE_RATE_LIMITED: { code: 'service-rate-limited', legacy: true },
  ERR_SERVICE_SERVER: { code: 'service-server', legacy: true },
  ERR_SERVICE_UNREACHABLE: { code: 'service-unreachable', legacy: true },
  ERR_SERVICE_RESPONSE: { code: 'service-response', legacy: true },
  ERR_MISSING_DEPENDENCY: { code: 'missing-dependency', legacy: true },
  ERR_STORAGE_UNAVAILABLE: { code: 'storage-unavailable', legacy: false },
  ERR_LAYER_TOO_LARGE: { code: 'layer-too-large', legacy: false },
  ERR_LAYER_UNREADABLE: { code: 'layer-unreadable', legacy: false },
};

/** The RFC 9110 reason phrase a problem's `title` gives for its status. */
export function problemTitle(status: number): string {
  return Object.hasOwn(TITLES, status) ? TITLES[status as keyof typeof TITLES] : 'Error';
}

/** What a problem carries besides its code and detail: per-field errors, headers, and members of its own (`limit`, `checks`…). */
export interface ProblemExtra {
  errors?: ProblemField[];
  headers?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * A problem to answer with. `code` is a key of {@link PROBLEMS}, stable, and the `type` URI's last
 * segment; the status is the table's.
 * @example throw new Problem('check-not-found', `There is no check ${id}.`);
 */
export class Problem extends Error {
  readonly status: number;
  /** The library error code this problem was made from, sent as the deprecated `legacyCode`. */
  legacyCode: ErrorCode | null = null;
  /** `status` differs from the table's only for {@link Problem.refused}. */
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: ProblemExtra = {},
    status: number = PROBLEMS[code].status,
  ) {
    super(detail);
    this.status = status;
  }

  /** The problem a library error answers as (its detail the error's message unless given). */
  static of(error: PreflightError, detail: string = error.message, extra: ProblemExtra = {}): Problem {
    const { code, legacy } = ERROR_PROBLEMS[error.code];
    const problem = new Problem(code, detail, extra);
    if (legacy) problem.legacyCode = error.code;
    return problem;
  }

  /** A refusal fastify made with a 4xx status of its own, not one a route threw: `request-invalid` with that status. */
  static refused(status: number, detail: string): Problem {
    return new Problem('request-invalid', detail, {}, status);
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
    super('request-invalid', `The request's ${part} is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
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
    .send(problemBody(problem.status, problem.legacyCode ?? problem.code, problem.detail, request, problem.extra));
}

/** The request field an unknown product, variant or SKU was named in. */
const UNKNOWN_FIELD: Partial<Record<ErrorCode, string>> = { ERR_UNKNOWN_SKU: 'sku', ERR_UNKNOWN_VARIANT: 'variant', ERR_UNKNOWN_PRODUCT: 'product' };

/** File system errors that mean the data folder cannot take a write now. */
const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT']);
const STORAGE_UNAVAILABLE = new Set(['EROFS', 'EIO']);

/** Maps any error to a problem. */
export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  if (errno && STORAGE_FULL.has(errno)) return new Problem('storage-full', 'The data folder is full; retry later.', { headers: { 'Retry-After': '60' } });
  if (errno && STORAGE_UNAVAILABLE.has(errno)) return new Problem('storage-unavailable', `The data folder cannot be written (${errno}); retry later.`, { headers: { 'Retry-After': '60' } });
  if (error instanceof PreflightError) {
    const field = UNKNOWN_FIELD[error.code];
    if (field) return Problem.of(error, error.message, { errors: [{ path: field, message: error.message }] });
    if (error.code === 'ERR_STORAGE_UNAVAILABLE') return Problem.of(error, `${error.message} Retry later.`, { headers: { 'Retry-After': '10' } });
    return Problem.of(error);
  }
  const e = error as FastifyError & { part?: string };
  switch (e.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new Problem('upload-too-large', e.message, { headers: { Connection: 'close' } });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('body-too-large', 'A JSON body may be at most 1 MiB; send files as multipart uploads or URLs.', { headers: { Connection: 'close' } });
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new Problem('too-many-parts', `${e.message}: send one file part and the fields sku, or product and variant`, { headers: { Connection: 'close' } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new Problem('unsupported-media-type', 'Send multipart/form-data (a file part and sku or product + variant fields) or application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Problem('body-invalid', e.message);
    case 'FST_PROTO_VIOLATION':
    case 'FST_MP_PREMATURE_CLOSE':
      return new Problem('body-invalid', e.message);
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new Problem('url-invalid', e.message);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new Problem('uri-too-long', 'A segment of the URL is longer than this server reads (8 KiB).');
  }
  if ((error as { name?: string }).name === 'QueueUnavailableError' || e.code === 'queue-unavailable') {
    return new Problem('queue-unavailable', `${e.message}`, { headers: { 'Retry-After': '5' } });
  }
  // fastify's JSON parser answers a body JSON.parse refused with the parser's own SyntaxError, given status 400.
  if (e.statusCode === 400 && error instanceof SyntaxError) return new Problem('body-invalid', e.message);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return Problem.refused(e.statusCode, e.message);
  return new Problem('internal', 'The server failed while answering; the request id in the logs tells what happened.');
}

/**
 * A whole HTTP answer, written straight to a socket, for requests the HTTP parser refused before
 * fastify saw them (malformed, headers too large, too slow): still problem+json, with the same
 * headers as every other answer, and the connection closed.
 */
export function rawProblem(problem: Problem, headers: Record<string, string>): string {
  const { status, code, detail } = problem;
  const title = problemTitle(status);
  const body = JSON.stringify({ type: `urn:print-preflight:problem:${code}`, title, status, detail, code });
  const lines = [
    `HTTP/1.1 ${status} ${title}`,
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
      return new Problem('request-timeout', 'The request did not arrive whole in time (headers, or the whole request); send it again, faster.');
    case 'HPE_HEADER_OVERFLOW': {
      // The request line alone over the limit: the URL is what is too long.
      const head = error.rawPacket ? error.rawPacket.subarray(0, 64 * 1024).toString('latin1') : '';
      const nl = head.indexOf('\n');
      const requestLine = nl < 0 ? /^[A-Z]+ \S/.test(head) : /^[A-Z]+ \S+ HTTP\/1\.\d\r?$/.test(head.slice(0, nl)) && nl > 8 * 1024;
      if (requestLine) return new Problem('uri-too-long', 'The request line is longer than this server reads; shorten the URL.');
      return new Problem('headers-too-large', 'The request headers are larger than this server reads (16 KiB in all); send fewer or shorter headers.');
    }
    case 'HPE_INVALID_METHOD':
      return new Problem('request-malformed', 'The request method is not one HTTP knows.');
    default:
      return new Problem('request-malformed', `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`);
  }
}
