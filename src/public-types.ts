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
export type { JpegScanLimits } from './pdf/jpeg-scans.js';
export type { TimeBudget } from './pool/budget.js';
export { IMAGE_PATH_DECLINED, RenderTaskSchema, type InspectResult, type RenderTask } from './pool/tasks.js';
export type { Target as ProfileTarget } from './profile/registry.js';
export type { PreviewFormat } from './raster/preview.js';
export type { PreviewRef, ReportInput } from './report/build.js';
export { ReportImageSchema, ReportPageSchema, VerdictSchema } from './report/schema.js';
export type { TextOptions } from './report/text.js';
export { SEVERITIES, SeveritySettingSchema } from './model/codes.js';
export type { CheckContext } from './rules/context.js';
export type { Rules as PolicyRules } from './model/policy.js';
export type { PolicyLoosening, Settled as SettledFinding } from './rules/settle.js';
export type { CustomerReportPageInput, ApprovalPageDataInput, FixRecord } from './report/customer-pages.js';
export type { MockupPreview, MockupLayer } from './report/mockup.js';
export type { CustomerTextOptions } from './report/customer-text.js';
export type { ApprovalPart, PageImage } from './report/approval.js';
export type { FixState } from './report/customer.js';
export type { PairChange, ChangeSpot, UnitBox } from './report/before-after.js';
export type { Grammar, LocalName, LoadedCatalogue, MessageContext, Formatter as MessageFormatter } from './messages/catalogue.js';
export { UI_KEYS, type UiMessages, type UiKey } from './messages/ui.js';
export type { SettleOptions } from './rules/index.js';
export { settleBounded } from './rules/settle.js';
export { TransformTaskSchema, type TransformTask } from './pool/tasks.js';
export { TaskFailure } from './pool/pool.js';
export { RectSchema, MatrixSchema, type Rect, type Matrix } from './model/geometry.js';
