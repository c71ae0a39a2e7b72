import { PreflightError, type ErrorCode } from '../errors.js';

/** An error answer of the order service, by status, with the messages of its error body. */
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

/** 400: missing or invalid fields; `messages` names them. */
export class ServiceValidationError extends OrderServiceError {}
/** 401: no valid credentials, or a revoked token. */
export class ServiceAuthenticationError extends OrderServiceError {}
/** 403: the credentials lack the rights. */
export class ServicePermissionError extends OrderServiceError {}
/** 404: no such resource. */
export class ServiceNotFoundError extends OrderServiceError {}
/** 429: over 30 requests a minute, still after the retries. */
export class ServiceRateLimitError extends OrderServiceError {}
/** 5xx: the service failed. */
export class ServiceServerError extends OrderServiceError {}
/** No answer: connection, DNS or time-out. */
export class ServiceUnreachableError extends OrderServiceError {}
/** An answer that does not have the shape the spec gives. */
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
