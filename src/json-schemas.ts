import { BatchErrorRecordSchema, BatchSummarySchema, FixedReportSchema } from './batch/summary.js';
import { OrderSchema } from './order/schema.js';
import { ProfileSchema } from './profile/schema.js';
import { ReportSchema } from './report/schema.js';
import { toJsonSchema } from './util/json-schema.js';

/**
 * The JSON Schemas published in the package's schemas/ folder, generated from the zod schemas
 * (`npm run schemas` writes them; a test fails when they are stale). Profiles and order drafts are
 * documents we read (their input side: defaults may be left out); reports are documents we write.
 * @example
 * import { jsonSchemas } from 'print-preflight/schemas';
 * const report = jsonSchemas()['report.schema.json'];
 * // hand it to any JSON Schema validator (ajv, jsonschema, …)
 */
export function jsonSchemas(): Record<string, unknown> {
  return {
    'profile.schema.json': { ...toJsonSchema(ProfileSchema, 'input'), title: 'print-preflight product profile' },
    'order.schema.json': { ...toJsonSchema(OrderSchema, 'output'), title: 'order creation request body' },
    'report.schema.json': { ...toJsonSchema(ReportSchema, 'output'), title: 'print-preflight report' },
    'fixed-report.schema.json': { ...toJsonSchema(FixedReportSchema, 'output'), title: 'print-preflight report of a fixed file (batch --fix: <out>/fixed/<file>.json)' },
    'batch-summary.schema.json': { ...toJsonSchema(BatchSummarySchema, 'output'), title: 'print-preflight batch summary (<out>/summary.json)' },
    'batch-error.schema.json': { ...toJsonSchema(BatchErrorRecordSchema, 'output'), title: 'print-preflight batch record of a file that could not be judged (<out>/reports/<file>.json)' },
  };
}
