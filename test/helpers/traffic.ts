/**
 * Every answer a test server gives, held against the OpenAPI document it serves: the status must be
 * declared for the operation the request reached, a problem's `code` must be one the status lists,
 * and a JSON body must be valid (ajv, strict) against the declared schema. Recorded at the HTTP
 * server itself (a listener ahead of fastify's), so it sees what clients see, whatever test sent it.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { OpenApiContract } from './contracts.js';

export interface Answer {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body: Buffer;
  /** Whole: not cut at the recording cap. */
  complete: boolean;
  /** The Retry-After header sent, if any. */
  retryAfter: string | null;
}

/** JSON bodies are kept up to this size (reports with many pages are a few MB at most). */
const MAX_BODY = 16 * 1024 * 1024;

export class Traffic {
  readonly answers: Answer[] = [];

  /** Records every answer `server` sends from now on. */
  observe(server: Server): this {
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let complete = true;
      // fastify hands its headers to writeHead, not setHeader: take the content type from either.
      let contentType: string | null = null;
      let retryAfter: string | null = null;
      const typeNow = () => contentType ?? (res.getHeader('content-type') as string | undefined) ?? null;
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
      res.writeHead = ((...a: unknown[]) => {
        const headers = a.find((x, i) => i > 0 && x && typeof x === 'object') as Record<string, unknown> | unknown[] | undefined;
        if (Array.isArray(headers)) {
          for (let i = 0; i + 1 < headers.length; i += 2) {
            const name = String(headers[i]).toLowerCase();
            if (name === 'content-type') contentType = String(headers[i + 1]);
            if (name === 'retry-after') retryAfter = String(headers[i + 1]);
          }
        } else if (headers) {
          for (const [k, v] of Object.entries(headers)) {
            if (k.toLowerCase() === 'content-type') contentType = String(v);
            if (k.toLowerCase() === 'retry-after') retryAfter = String(v);
          }
        }
        return writeHead(...a);
      }) as typeof res.writeHead;
      const keep = (chunk: unknown, encoding?: unknown) => {
        if (!chunk || typeof chunk === 'function') return;
        if (!/json/.test(typeNow() ?? '')) return;
        const b = Buffer.isBuffer(chunk)
          ? chunk
          : typeof chunk === 'string'
            ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding)
            : Buffer.from(chunk as Uint8Array);
        size += b.length;
        if (size > MAX_BODY) complete = false;
        else chunks.push(b);
      };
      const write = res.write.bind(res) as (...a: unknown[]) => boolean;
      const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
      res.write = ((...a: unknown[]) => {
        keep(a[0], a[1]);
        return write(...a);
      }) as typeof res.write;
      res.end = ((...a: unknown[]) => {
        keep(a[0], a[1]);
        return end(...a);
      }) as typeof res.end;
      res.once('finish', () => {
        this.answers.push({
          method: req.method ?? 'GET',
          path: (req.url ?? '/').split('?')[0]!,
          status: res.statusCode,
          contentType: typeNow(),
          body: Buffer.concat(chunks),
          complete,
          retryAfter: retryAfter ?? (res.getHeader('retry-after') as string | undefined) ?? null,
        });
      });
    });
    return this;
  }

  /**
   * Everything wrong with the recorded answers against `doc` (the document the server serves).
   * Requests that reached no operation (an unknown path, a method a path does not have) must be
   * answered with a problem the server gives for any request: 404, 405, or one of the statuses of
   * an unreadable request.
   */
  errors(doc: Record<string, unknown>): string[] {
    const contract = new OpenApiContract(doc);
    const out = new Set<string>();
    for (const a of this.answers) {
      if (a.method === 'HEAD' || a.method === 'OPTIONS') continue;
      const found = contract.operation(a.method, a.path);
      if (!found) {
        if (![400, 404, 405, 408, 413, 414, 431].includes(a.status)) out.add(`${a.method} ${a.path} reached no operation and answered ${a.status}`);
        if (a.complete && a.body.length) for (const e of contract.componentErrors('Problem', a.body)) out.add(`${a.method} ${a.path} → ${a.status}: ${e}`);
        continue;
      }
      const body = a.complete ? a.body : Buffer.alloc(0);
      for (const e of contract.answerErrors(a.method, a.path, a.status, a.contentType, body)) out.add(e);
      if (a.status >= 400 && a.complete && a.body.length) {
        const code = (JSON.parse(a.body.toString('utf8')) as { code?: string }).code;
        const listed = (found.op.responses as Record<string, { 'x-problem-codes'?: string[] }>)[String(a.status)]?.['x-problem-codes'];
        if (listed && code && !listed.includes(code)) {
          out.add(`${a.method.toUpperCase()} ${found.template} → ${a.status} answered code ${code}, which its x-problem-codes do not list (${listed.join(', ')})`);
        }
      }
    }
    return [...out].sort();
  }

  /** Asserts every recorded answer is as `serverUrl`'s /openapi.json documents it. */
  async expectDocumented(serverUrl: string, headers: Record<string, string> = {}): Promise<void> {
    const res = await fetch(`${serverUrl}/openapi.json`, { headers });
    const doc = (await res.json()) as Record<string, unknown>;
    expect(this.answers.length, 'answers recorded').toBeGreaterThan(0);
    expect(this.errors(doc)).toEqual([]);
  }

  /** The operations and statuses seen, `GET /v1/checks/{id} 404`, for tests that need a status covered. */
  seen(doc: Record<string, unknown>): Set<string> {
    const contract = new OpenApiContract(doc);
    const out = new Set<string>();
    for (const a of this.answers) {
      const found = contract.operation(a.method, a.path);
      if (found) out.add(`${a.method.toUpperCase()} ${found.template} ${a.status}`);
    }
    return out;
  }
}
