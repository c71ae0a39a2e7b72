/**
 * Every schema of the documents print-preflight reads and writes (`import … from
 * 'print-preflight/schemas'`): zod schemas to parse or validate them in TypeScript, and
 * {@link jsonSchemas} — the JSON Schemas published in the package's `schemas/` folder
 * (`print-preflight/schemas/report.schema.json` …) for every other language. The order service's
 * schemas (order bodies, webhooks) are on `print-preflight/order-service`.
 * @example
 * import { ReportSchema } from 'print-preflight/schemas';
 * import { readFile } from 'node:fs/promises';
 * const report = ReportSchema.parse(JSON.parse(await readFile('report.json', 'utf8')));
 * console.log(report.verdict);
 * @packageDocumentation
 */
export { ReportSchema, ReportPageSchema, ReportImageSchema, VerdictSchema } from './report/schema.js';
export { ProfileSchema, LimitsSchema } from './profile/schema.js';
export { FindingSchema, CustomerMessageSchema } from './model/finding.js';
export { FINDING_CODE_LIST, SEVERITIES, SeveritySettingSchema, CHANGE_CODES, ChangeCodeSchema } from './model/codes.js';
export { PolicySchema, PolicyActionSchema, FixModeSchema, FIXES } from './model/policy.js';
export { BatchSummarySchema, BatchResultSchema, BatchVerdictSchema, FixedReportSchema, BatchErrorRecordSchema } from './batch/summary.js';
export { TargetSchema, PreflightOptionsSchema, CheckOptionsSchema } from './flow/options.js';
export { FixOptionsSchema } from './flow/fix.js';
export { AssembleOptionsSchema } from './flow/assemble.js';
export { NetworkOptionsSchema } from './flow/preflight-url.js';
export { PoolOptionsSchema } from './pool/pool.js';
export { DecodeLimitsSchema, DecodeLimitsOverrideSchema } from './pdf/decode-limits.js';
export { DocumentFactsSchema, PageFactsSchema, ImageFactsSchema } from './pdf/facts.js';
export { RasterFactsSchema } from './raster/facts.js';
export { LocaleSchema } from './model/locales.js';
export { RectSchema, MatrixSchema } from './model/geometry.js';
export { jsonSchemas } from './json-schemas.js';
