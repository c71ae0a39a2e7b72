import { z } from 'zod';

/**
 * How source URLs are downloaded. Defaults are set here and nowhere else.
 * @example
 * import { NetworkOptionsSchema } from 'print-preflight/schemas';
 * const network = NetworkOptionsSchema.parse({ allowHosts: ['cdn.example.com'] });
 */
export const NetworkOptionsSchema = z
  .object({
    connectTimeoutMs: z.number().int().min(1).default(10_000),
    /** For the whole download, redirects included. */
    totalTimeoutMs: z.number().int().min(1).default(120_000),
    maxRedirects: z.number().int().min(0).max(20).default(5),
    /**
     * Hosts allowed although they resolve to loopback, private or link-local addresses (the SSRF
     * guard refuses those by default). "127.0.0.1", "localhost", "files.internal:8080".
     */
    allowHosts: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type NetworkOptions = z.input<typeof NetworkOptionsSchema>;
