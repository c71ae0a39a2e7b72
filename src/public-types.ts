/**
 * Types and schemas that signatures of the public API name, re-exported from the main entry point
 * so that a user (and the API reference) can name them too.
 */
export { BatchVerdictSchema } from './batch/summary.js';
export type { Manifest as BatchManifest, Resolution as TargetResolution } from './batch/discover.js';
export type { ClientEvents } from './client/client.js';
export { CreatedOrderSchema, LinksSchema, LooseEnvelopeSchema, LooseRecordSchema, MetaSchema } from './client/schemas.js';
export type { MessageTarget } from './client/studio.js';
export { CheckStatusSchema } from './jobs/schema.js';
export type { Entry as CatalogueEntry } from './messages/catalogue.js';
export type { ScanLimits } from './pdf/content-scan.js';
export { DecodeLimitsOverrideSchema, type DecodeBudget, type BudgetExceededError } from './pdf/decode-budget.js';
export type { ColourSpaceFacts } from './pdf/facts.js';
export type { FontProgramLimits } from './pdf/font/program.js';
export type { ScreenLimits } from './pdf/screen.js';
export type { TimeBudget } from './pool/budget.js';
export { IMAGE_PATH_DECLINED, RenderTaskSchema, type InspectResult, type RenderTask } from './pool/tasks.js';
export type { Target as ProfileTarget } from './profile/registry.js';
export type { PreviewFormat } from './raster/preview.js';
export type { PreviewRef, ReportInput } from './report/build.js';
export { ReportImageSchema, ReportPageSchema, VerdictSchema } from './report/schema.js';
export type { TextOptions } from './report/text.js';
export { SEVERITIES, SeveritySettingSchema } from './rules/codes.js';
export type { CheckContext } from './rules/context.js';
export type { PolicyLoosening, Rules as PolicyRules, Settled as SettledFinding } from './rules/policy.js';
