/**
 * print-preflight: preflight print files for the order service.
 * @example
 * import { preflight } from 'print-preflight';
 * const report = await preflight('design.pdf', { product: 'duvet-cover', variant: '200x200' });
 * console.log(report.verdict, report.findings);
 *
 * The HTTP service is `print-preflight/service`, the Redis fleet `print-preflight/fleet`, test
 * doubles `print-preflight/testing`: this entry point loads none of the server packages (fastify,
 * BullMQ, ioredis, prom-client), which are optional peer dependencies.
 */
export { preflight, preflightWithPreviews, type Preview } from './flow/preflight.js';
export { check, type CheckSource, type CheckOptions as PipelineOptions, type CheckResult } from './flow/check.js';
export { PreflightPool, PoolOptionsSchema, defaultPool, closeDefaultPool, type PoolOptions } from './pool/pool.js';
export { DEFAULT_DECODE_LIMITS, DecodeLimitsSchema, tightenLimits, type DecodeLimits, type DecodeLimitsOverride } from './pdf/decode-budget.js';
export { renderHtml, type HtmlPreview } from './report/html.js';
export { RasterFactsSchema, type RasterFacts } from './raster/facts.js';
export { CheckOptionsSchema, PreflightOptionsSchema, TargetSchema, type PreflightOptions, type Target } from './flow/options.js';
export { loadProfiles, parseProfile, DEFAULT_PROFILES_DIR } from './profile/load.js';
export { ProfileRegistry, type ResolvedTarget, type LayerSpec } from './profile/registry.js';
export { ProfileSchema, LimitsSchema, type Profile, type ProfileInput, type Limits } from './profile/schema.js';
export { inspectPdf, type InspectOptions } from './pdf/inspect.js';
export { DocumentFactsSchema, PageFactsSchema, ImageFactsSchema, type DocumentFacts, type PageFacts, type ImageFacts } from './pdf/facts.js';
export { runChecks } from './rules/index.js';
export { FINDING_CODES, FINDING_CODE_LIST, type FindingCode, type Severity, type SeveritySetting } from './model/codes.js';
export { FindingSchema, type Finding } from './model/finding.js';
export { ReportSchema, type Report, type ReportPage, type ReportImage, type Verdict } from './report/schema.js';
export { buildReport, verdictOf } from './report/build.js';
export { renderText } from './report/text.js';
export { safeForTerminal } from './report/terminal.js';
export { jsonSchemas } from './schemas.js';
export { OrderServiceClient, ClientOptionsSchema, type ClientOptions, type DeprecationWarning } from './client/client.js';
export {
  OrderServiceError,
  ServiceValidationError,
  ServiceAuthenticationError,
  ServicePermissionError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceServerError,
  ServiceUnreachableError,
  ServiceResponseError,
} from './client/errors.js';
export { verifyWebhook, webhookSignatureProblem, signWebhook, parseWebhook, webhookHandler, type WebhookEvent, type WebhookSignatureProblem, type WebhookHandlerOptions } from './client/webhooks.js';
export { studioUrl, studioPreviewUrl, listenToStudio } from './client/studio.js';
export {
  FulfillmentSchema,
  ProductSchema,
  WebhookOrderSchema,
  WebhookFailedSchema,
  OrderCreatedSchema,
  type Fulfillment,
  type Product,
  type ProductPage,
  type WebhookOrder,
  type OrderCreated,
  type CreatedOrder,
  type ProductPricing,
  type LooseList,
  type LooseRecord,
  type JsonValue,
} from './client/schemas.js';
export { RateLimiter } from './client/rate-limit.js';
export { fix, FixOptionsSchema, type FixOptions, type FixResult, type Change, type Refusal } from './flow/fix.js';
export { assemble, AssembleOptionsSchema, type AssembleOptions, type AssembleResult, type LayerInput } from './flow/assemble.js';
export type { LayersSource, LayerSource } from './flow/assembly.js';
export type { AssemblyFill } from './model/assembly.js';
export type { Fit } from './model/instructions.js';
export { preflightFolder, type FolderOptions, type BatchProgress } from './batch/run.js';
export { watchFolder, type WatchOptions, type HotFolder } from './batch/watch.js';
export { BatchSummarySchema, BatchResultSchema, type BatchSummary, type BatchResult, type BatchVerdict } from './batch/summary.js';
export { readManifest, resolveTarget } from './batch/discover.js';
export { preflightUrl, NetworkOptionsSchema, type NetworkOptions, type UrlPreflightOptions } from './flow/preflight-url.js';
export { buildOrderPayload, validateDraft, OrderPayloadError, type OrderIssue, type BuildOptions, type GivenPreflight } from './flow/order.js';
export {
  OrderSchema,
  RowSchema,
  SourceSchema,
  CustomerSchema,
  ShippingAddressSchema,
  ShippingLabelSchema,
  type OrderDraft,
  type OrderPayload,
  type OrderRow,
} from './order/schema.js';
export {
  PreflightError,
  InvalidArgumentError,
  UnknownTargetError,
  ProfileError,
  InputUnreadableError,
  MissingDependencyError,
  StorageUnavailableError,
  type StorageFailure,
  ERROR_CODES,
  type ErrorCode,
} from './errors.js';
export { CheckViewSchema, type CheckView } from './jobs/view.js';
export type { CheckStatus } from './jobs/schema.js';
export {
  checkAndFix,
  checkAndFixUrl,
  type CheckAndFixUrlOptions,
  DEFAULT_FIX_POLICY,
  DEFAULT_APPROVAL,
  FixModeSchema,
  type FixMode,
  type CheckAndFixOptions,
  type CheckAndFixResult,
  type FixedFile,
  type FlowChange,
} from './flow/check-and-fix.js';
export { PolicySchema, PolicyActionSchema, FIXES, FIXABLE_CODES, type Policy, type PolicyAction, type FixableCode } from './model/policy.js';
export { settleFinding, policyLoosenings } from './rules/settle.js';
export { LOCALES, LocaleSchema, MESSAGE_LOCALES, matchLocale, negotiateLocale, type Locale, type MessageLocale, type NegotiatedLocale } from './model/locales.js';
export { customerMessage, localizeReport, loadCatalogue, localeNotice, uiFormatter, type Catalogue, type NamedTarget, type UiFormatter } from './messages/catalogue.js';
export { GENDERS, type Gender } from './model/genders.js';
export { PANEL_SHAPES, type PanelShape } from './profile/shapes.js';
export { renderCustomerReport, type CustomerReportInput } from './report/customer.js';
export { renderCustomerText } from './report/customer-text.js';
export { customerReportPage, approvalPage } from './report/customer-pages.js';
export { renderApproval, type ApprovalPageInput } from './report/approval.js';
export { renderMockup, layerMockups } from './report/mockup.js';
export { pairLayers, type LayerPair } from './report/before-after.js';
export { CustomerMessageSchema, type CustomerMessage } from './model/finding.js';
export * from './public-types.js';
