/**
 * print-preflight: preflight, fix and assemble print files for the order service.
 *
 * This entry point is the checking library: check a file against a product (`check`, `preflight`,
 * `checkAndFix`), fix or assemble one, judge a folder, load product profiles, render a report, and
 * the errors misuse throws. Everything else has an entry of its own, so that this one stays small
 * and every name on it is one we keep:
 *
 * - `print-preflight/order-service`: the order service's client, webhooks, the embedded studio and
 *   order bodies built from preflighted sources;
 * - `print-preflight/customer`: what a customer reads — messages in their language, the customer
 *   report, the approval page, mockups;
 * - `print-preflight/schemas`: every zod schema of the documents we read and write, and their JSON
 *   Schemas;
 * - `print-preflight/service`, `print-preflight/fleet`: the HTTP service and the Redis fleet (their
 *   server packages are optional peer dependencies: this entry loads none of them);
 * - `print-preflight/testing`: a fake of the order service for an integration's tests.
 * @example
 * import { preflight } from 'print-preflight';
 * const report = await preflight('design.pdf', { product: 'duvet-cover', variant: '200x200' });
 * console.log(report.verdict, report.findings);
 * @packageDocumentation
 */

// Checking a file: the one entrance and the shapes built on it.
export { check, type CheckSource, type CheckOptions, type CheckResult, type FixedFile, type FlowChange } from './flow/check.js';
export { preflight, preflightWithPreviews, type Preview } from './flow/preflight.js';
export { preflightUrl, type NetworkOptions, type UrlPreflightOptions } from './flow/preflight-url.js';
export { checkAndFix, checkAndFixUrl, DEFAULT_FIX_POLICY, DEFAULT_APPROVAL, type CheckAndFixOptions, type CheckAndFixUrlOptions, type CheckAndFixResult, type FixMode } from './flow/check-and-fix.js';
export type { PreflightOptions, Target } from './flow/options.js';

// Changing a file.
export { fix, type FixOptions, type FixResult, type Change, type Refusal } from './flow/fix.js';
export { assemble, type AssembleOptions, type AssembleResult, type LayerInput } from './flow/assemble.js';
export type { AssemblyFill } from './model/assembly.js';
export type { LayersSource, LayerSource } from './flow/assembly.js';
export type { Fit } from './model/instructions.js';

// Folders.
export { preflightFolder, type FolderOptions, type BatchProgress } from './batch/run.js';
export { watchFolder, type WatchOptions, type HotFolder } from './batch/watch.js';
export type { BatchSummary, BatchResult, BatchVerdict } from './batch/summary.js';

// The pool the checks run in, and the bounds on what a file may cost.
export { PreflightPool, defaultPool, closeDefaultPool, type PoolOptions } from './pool/pool.js';
export { DEFAULT_DECODE_LIMITS, type BudgetExceededError } from './pdf/decode-budget.js';
export type { DecodeLimits, DecodeLimitsOverride } from './pdf/decode-limits.js';

// Products.
export { loadProfiles, parseProfile, DEFAULT_PROFILES_DIR } from './profile/load.js';
export { ProfileRegistry, type ResolvedTarget, type LayerSpec } from './profile/registry.js';
export type { Profile, ProfileInput, Limits } from './profile/schema.js';

// What a check finds and says.
export { inspectPdf, type InspectOptions } from './pdf/inspect.js';
export type { DocumentFacts, PageFacts, ImageFacts } from './pdf/facts.js';
export { FINDING_CODES, FINDING_CODE_LIST, type FindingCode, type ChangeCode, type OwnChangeCode, type Severity, type SeveritySetting } from './model/codes.js';
export type { Finding, CustomerMessage } from './model/finding.js';
export { FIXABLE_CODES, type Policy, type PolicyAction, type FixableCode } from './model/policy.js';
export type { Report, ReportPage, ReportImage, Verdict } from './report/schema.js';
export type { RasterFacts } from './raster/facts.js';
export { renderHtml, type HtmlPreview } from './report/html.js';
export { renderText } from './report/text.js';
export type { Locale } from './model/locales.js';

// Misuse: typed errors with a stable code.
export {
  PreflightError,
  InvalidArgumentError,
  UnknownTargetError,
  ProfileError,
  InputUnreadableError,
  LayerImageError,
  MissingDependencyError,
  StorageUnavailableError,
  type StorageFailure,
  ERROR_CODES,
  type ErrorCode,
} from './errors.js';

// The documents' main schemas (every schema, and the JSON Schemas: print-preflight/schemas).
export { ReportSchema } from './report/schema.js';
export { ProfileSchema } from './profile/schema.js';
export { FindingSchema } from './model/finding.js';
export { PolicySchema } from './model/policy.js';
export { BatchSummarySchema } from './batch/summary.js';

export type * from './public-types.js';
