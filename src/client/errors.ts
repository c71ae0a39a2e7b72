import { PreflightError, type ErrorCode } from '../errors.js';

/**
 * An error answer of the order service, by status, with the messages of its error body.
 * @example
 * import { OrderServiceError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.ping(); }
 * catch (e) { if (e instanceof OrderServiceError && e.retryAfterMs) setTimeout(retry, e.retryAfterMs); }
 * declare function retry(): void;
 */
export class OrderServiceError extends PreflightError {
  constructor(
    code: ErrorCode,
    readonly status: number | null,
    readonly messages: readonly string[],
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(code, message);
  }
}

/**
 * 400: missing or invalid fields; `messages` names them.
 * @example
 * import { ServiceValidationError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceValidationError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_VALIDATION, 400
 */
export class ServiceValidationError extends OrderServiceError {}
/**
 * 401: no valid credentials, or a revoked token.
 * @example
 * import { ServiceAuthenticationError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceAuthenticationError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_AUTH, 401
 */
export class ServiceAuthenticationError extends OrderServiceError {}
/**
 * 403: the credentials lack the rights.
 * @example
 * import { ServicePermissionError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServicePermissionError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_PERMISSION, 403
 */
export class ServicePermissionError extends OrderServiceError {}
/**
 * 404: no such resource.
 * @example
 * import { ServiceNotFoundError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceNotFoundError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_NOT_FOUND, 404
 */
export class ServiceNotFoundError extends OrderServiceError {}
/**
 * 429: over 30 requests a minute, still after the retries.
 * @example
 * import { ServiceRateLimitError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceRateLimitError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_RATE_LIMITED, 429
 */
export class ServiceRateLimitError extends OrderServiceError {}
/**
 * 5xx: the service failed.
 * @example
 * import { ServiceServerError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceServerError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_SERVER, 5xx
 */
export class ServiceServerError extends OrderServiceError {}
/**
 * No answer: connection, DNS or time-out.
 * @example
 * import { ServiceUnreachableError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceUnreachableError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_UNREACHABLE
 */
export class ServiceUnreachableError extends OrderServiceError {}
/**
 * An answer that does not have the shape the spec gives.
 * @example
 * import { ServiceResponseError, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * try { await client.listFulfillments(1234); }
 * catch (e) { if (e instanceof ServiceResponseError) console.error(e.code, e.status, e.messages); } // ERR_SERVICE_RESPONSE
 */
export class ServiceResponseError extends OrderServiceError {}

export function errorForStatus(status: number, messages: string[], what: string, retryAfterMs: number | null): OrderServiceError {
  const text = `${what}: ${status}${messages.length ? ` — ${messages.join('; ')}` : ''}`;
  if (status === 400 || status === 422) return new ServiceValidationError('ERR_SERVICE_VALIDATION', status, messages, text);
  if (status === 401) return new ServiceAuthenticationError('ERR_SERVICE_AUTH', status, messages, `${text} (check the access token and application key)`);
  if (status === 403) return new ServicePermissionError('ERR_SERVICE_PERMISSION', status, messages, text);
  if (status === 404) return new ServiceNotFoundError('ERR_SERVICE_NOT_FOUND', status, messages, text);
  if (status === 429) return new ServiceRateLimitError('ERR_SERVICE_RATE_LIMITED', status, messages, text, retryAfterMs);
  if (status >= 500) return new ServiceServerError('ERR_SERVICE_SERVER', status, messages, text);
  return new ServiceResponseError('ERR_SERVICE_RESPONSE', status, messages, text);
}
