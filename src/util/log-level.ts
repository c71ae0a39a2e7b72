import { z } from 'zod';

/** How much a server logs: pino's levels, for the service's options and `serve --log-level`. */
export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
export type LogLevel = z.infer<typeof LogLevelSchema>;
