import { z } from 'zod';
import { FixChangeSchema, RefusalSchema } from '../model/change.js';
import { ReportSchema } from '../report/schema.js';
import { FindingCodeSchema } from '../model/codes.js';
import { escapeHtml, ordinal } from '../util/text.js';
import { CHART_CSS, batchCharts } from './charts.js';

/**
 * A file's verdict in a batch: a report's verdict, or `error` when the file could not be judged.
 * @example
 * import { BatchVerdictSchema } from 'print-preflight/schemas';
 * BatchVerdictSchema.options; // ['pass', 'warn', 'fail', 'error']
 */
export const BatchVerdictSchema = z.enum(['pass', 'warn', 'fail', 'error']);
export type BatchVerdict = z.infer<typeof BatchVerdictSchema>;

/**
 * One file's result in a batch summary: its verdict, product, where its reports are, the codes
 * found (by code and by page), and its fixed file.
 * @example
 * import { BatchResultSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const result = BatchResultSchema.parse(json);
 */
export const BatchResultSchema = z.object({
  /** Path relative to the batch folder. */
  file: z.string(),
  sku: z.string().nullable(),
  /** How the product was found: manifest, file name or folder; null when it was not. */
  via: z.enum(['manifest', 'file name', 'folder']).nullable(),
  verdict: BatchVerdictSchema,
  /** The report (the same JSON as `check --json`), relative to the output folder. */
  report: z.string(),
  /** The visual report, relative to the output folder. */
  html: z.string().nullable(),
  /** Why the file got `error`. */
  reason: z.string().nullable(),
  /** Codes found, with their counts. */
  rules: z.partialRecord(FindingCodeSchema, z.number().int()),
  /**
   * Findings by page: the page's number (from 1), or `file` for findings of the whole file, with
   * their counts (of the same report as `rules`). Absent when the file was not judged, and in
   * summaries written before 0.2.0.
   */
  pages: z.record(z.union([z.string().regex(/^[1-9]\d*$/), z.literal('file')]), z.number().int().min(1)).optional(),
  /** True when the report of an earlier run was kept (same bytes, same rules). */
  reused: z.boolean(),
  /** Why the file's report could not be written (a full disk…); the verdict above still holds. */
  outputError: z.string().optional(),
  /**
   * The fixed file (a run with `fix`, and the policy fixed something): `fixed/<file>` beside
   * `fixed/<file>.json` (its report and the changes), relative to the output folder; the original
   * is left as it is. `verdict` above is the fixed file's. `needsApproval`: the changes alter what
   * prints and the run asked for approval (`fix: approve`): a person looks before it is used.
   */
  fixed: z
    .strictObject({
      file: z.string(),
      report: z.string(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      changes: z.number().int().min(0),
      needsApproval: z.boolean(),
      /** The original file's verdict. */
      originalVerdict: z.enum(['pass', 'warn', 'fail']),
    })
    .optional(),
});
export type BatchResult = z.infer<typeof BatchResultSchema>;

/**
 * `<out>/fixed/<file>.json`: the fixed file's report (the same JSON as `check --json`) with `fix`,
 * what the fix did — `status` `needs-approval` when the changes alter what prints and the run asked
 * for approval, the changes made and the fixes refused. Published as schemas/fixed-report.schema.json.
 * @example
 * const fixed: FixedReport = FixedReportSchema.parse(JSON.parse(readFileSync('out/fixed/a.pdf.json', 'utf8')));
 */
export const FixedReportSchema = ReportSchema.extend({
  fix: z.strictObject({
    status: z.enum(['done', 'needs-approval']),
    changes: z.array(FixChangeSchema),
    refused: z.array(RefusalSchema),
  }),
});
export type FixedReport = z.infer<typeof FixedReportSchema>;

/**
 * `<out>/reports/<file>.json` of a file that could not be judged (no product for it, unreadable,
 * an internal failure): the file, `verdict: "error"` and why. Published as
 * schemas/batch-error.schema.json; a judged file's report follows schemas/report.schema.json.
 * @example
 * const record = JSON.parse(text);
 * if (record.verdict === 'error') console.log(BatchErrorRecordSchema.parse(record).reason);
 */
export const BatchErrorRecordSchema = z.strictObject({
  /** Path relative to the batch folder. */
  file: z.string(),
  verdict: z.literal('error'),
  reason: z.string(),
});
export type BatchErrorRecord = z.infer<typeof BatchErrorRecordSchema>;

/**
 * A batch run's summary (`<out>/summary.json`, `preflightFolder()`'s result): the counts per
 * verdict and one result per file. Published as schemas/batch-summary.schema.json.
 * @example
 * import { BatchSummarySchema } from 'print-preflight';
 * const summary = BatchSummarySchema.parse(JSON.parse(await readFile('checked/summary.json', 'utf8')));
 * console.log(`${summary.error} files could not be judged`);
 */
export const BatchSummarySchema = z.object({
  files: z.number().int(),
  pass: z.number().int(),
  warn: z.number().int(),
  fail: z.number().int(),
  error: z.number().int(),
  /** Files judged in an earlier run and kept. */
  reused: z.number().int(),
  /** True when the run was stopped (signal) before every file was judged. */
  interrupted: z.boolean(),
  /** Files found but not judged because the run was stopped. */
  pending: z.array(z.string()),
  results: z.array(BatchResultSchema),
  /** Files judged whose report could not be written (see each result's `outputError`). */
  unwritten: z.number().int().optional(),
  /** Why summary.json / index.html could not be written; the summary is still returned and printed. */
  summaryError: z.string().optional(),
});
export type BatchSummary = z.infer<typeof BatchSummarySchema>;

const esc = escapeHtml;
const ORDER: Record<BatchVerdict, number> = { error: 0, fail: 1, warn: 2, pass: 3 };

/**
 * The browsable summary: every file with its verdict, failures first, linked to its visual report;
 * beside it, charts of the verdicts and of the findings by code and by page (inline SVG).
 */
export function renderIndexHtml(summary: BatchSummary, title: string): string {
  const rows = [...summary.results]
    .sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || ordinal(a.file, b.file))
    .map((r) => {
      const codes = Object.entries(r.rules)
        .map(([c, n]) => `<code>${esc(c)}</code>${n! > 1 ? ` ×${n}` : ''}`)
        .join(' ');
      const name = r.html ? `<a href="${esc(r.html)}">${esc(r.file)}</a>` : esc(r.file);
      return `<tr class="${r.verdict}" data-verdict="${r.verdict}"><td><span class="badge ${r.verdict}">${r.verdict}</span></td><td>${name}</td><td>${esc(r.sku ?? '—')}</td><td>${r.reason ? esc(r.reason) : codes || '<span class="none">no findings</span>'}</td><td><a href="${esc(r.report)}">JSON</a></td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:1280px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 12px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:0 0 18px}
.card{background:#fff;border:1px solid #d1d9e0;border-radius:10px;padding:10px 18px;min-width:110px}
.card b{display:block;font-size:26px}
.card.pass b{color:#1a7f37}.card.warn b{color:#9a6700}.card.fail b{color:#cf222e}.card.error b{color:#8250df}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #d1d9e0;border-radius:10px;overflow:hidden}
th,td{text-align:left;padding:8px 12px;border-bottom:1px solid #d1d9e0;vertical-align:top}
th{background:#f6f8fa;font-size:13px;color:#59636e}
code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f6f8fa;padding:1px 4px;border-radius:4px}
.badge{display:inline-block;border-radius:999px;padding:1px 10px;color:#fff;font-size:12px;font-weight:700;text-transform:uppercase}
.badge.pass{background:#1a7f37}.badge.warn{background:#bf8700}.badge.fail{background:#cf222e}.badge.error{background:#8250df}
.none{color:#59636e}.note{color:#cf222e;font-weight:600}
${CHART_CSS}
</style></head>
<body><main>
<h1>${esc(title)}</h1>
${summary.interrupted ? `<p class="note">The run was stopped before every file was judged: ${summary.pending.length} file(s) pending.</p>` : ''}
<div class="cards">
<div class="card"><b>${summary.files}</b>files</div>
<div class="card pass"><b>${summary.pass}</b>pass</div>
<div class="card warn"><b>${summary.warn}</b>warn</div>
<div class="card fail"><b>${summary.fail}</b>fail</div>
<div class="card error"><b>${summary.error}</b>error</div>
</div>
<div class="layout">
<table><thead><tr><th>verdict</th><th>file</th><th>SKU</th><th>findings</th><th>report</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<aside class="charts" aria-label="Charts">
${batchCharts(summary)}
</aside>
</div>
</main></body></html>
`;
}
