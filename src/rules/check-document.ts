import type { DocumentProblem } from '../pdf/facts.js';
import type { Check } from './context.js';
import type { Draft } from '../model/finding.js';

/** file-not-pdf, pdf-damaged, pdf-too-complex and pdf-encrypted: whether the file can be read at all. */
export const checkDocument: Check = ({ facts }) => {
  const out: Draft[] = [];
  for (const p of mergeProblems(facts.problems)) {
    // The same problem found many times is one finding; how many times is in its details.
    const occurrences = p.count > 1 ? { details: { occurrences: p.count } } : {};
    if (p.kind === 'not-pdf') {
      out.push({
        code: 'file-not-pdf',
        page: null,
        layer: null,
        message: `The file is not a PDF: ${p.detail}. The service accepts PDF files only: export or convert the design to PDF (print-preflight assemble turns images into a compliant PDF).`,
        expected: 'a PDF file',
        actual: p.detail,
        ...occurrences,
      });
    } else if (p.kind === 'repaired') {
      out.push({
        code: 'pdf-repaired',
        page: null,
        layer: null,
        message: `The PDF is damaged but readable: ${p.detail}. Readers rebuild it on the fly; some production systems refuse such files. Export it again, or re-save it in a PDF editor.`,
        expected: 'an intact cross-reference table',
        actual: p.detail,
        ...occurrences,
      });
    } else if (p.kind === 'timeout') {
      out.push({
        code: 'pdf-timeout',
        page: null,
        layer: null,
        message: `The PDF could not be inspected within the time limit: ${p.detail}. A file this slow to read is likely to stall production too: flatten or simplify it and export it again.`,
        expected: 'inspection within the time limit',
        actual: p.detail,
        ...occurrences,
      });
    } else if (p.kind === 'too-complex') {
      out.push({
        code: 'pdf-too-complex',
        page: null,
        layer: null,
        message: `The PDF is too complex to inspect within the limits: ${p.detail}. Flatten or simplify the file and export it again.`,
        expected: 'a file that can be inspected within the limits',
        actual: p.detail,
        ...occurrences,
      });
    } else {
      out.push({
        code: 'pdf-damaged',
        page: null,
        layer: null,
        message: `The PDF is damaged: ${p.detail}. Export it again from the design tool, or upload it again if the copy was cut short.`,
        expected: 'a complete, readable PDF',
        actual: p.detail,
        ...occurrences,
      });
    }
  }
  if (facts.activeContent.length) {
    out.push({
      code: 'pdf-active-content',
      page: null,
      layer: null,
      message: `The PDF contains ${facts.activeContent.join(', ')}. print-preflight never runs them and a print file has no use for them; some production systems refuse such files. Export the file again without scripts or actions.`,
      expected: 'no actions',
      actual: facts.activeContent.join(', '),
    });
  }
  const enc = facts.encryption;
  if (enc) {
    out.push(
      enc.needsPassword
        ? {
            code: 'pdf-encrypted',
            page: null,
            layer: null,
            message: `The PDF is encrypted (${enc.method}) and needs a password to open: the service cannot read it. Export it again without a password.`,
            expected: 'a PDF that opens without a password',
            actual: `encrypted with ${enc.method}, user password required`,
            details: { method: enc.method, revision: enc.revision },
          }
        : {
            code: 'pdf-encrypted',
            severity: 'warning',
            page: null,
            layer: null,
            message: `The PDF is encrypted (${enc.method}) with an owner password only: it opens, but permissions restrict it and some workflows refuse such files. Export it again without security settings.`,
            expected: 'a PDF without encryption',
            actual: `encrypted with ${enc.method}, no user password`,
            details: { method: enc.method, revision: enc.revision },
          },
    );
  }
  return out;
};

/** Details listed in one merged finding; the rest are counted. */
const MAX_LISTED = 5;

/**
 * One problem per kind: the same problem found on many pages ("page 3: …", "page 4: …") or many
 * objects becomes one entry naming the pages and counting the rest, so a report never repeats
 * one finding dozens of times.
 */
export function mergeProblems(problems: readonly DocumentProblem[]): (DocumentProblem & { count: number })[] {
  const byKind = new Map<DocumentProblem['kind'], Map<string, number[]>>();
  for (const p of problems) {
    const m = /^page (\d+): (.*)$/s.exec(p.detail);
    const what = m ? m[2]! : p.detail;
    const kind = byKind.get(p.kind) ?? new Map<string, number[]>();
    byKind.set(p.kind, kind);
    const pages = kind.get(what) ?? [];
    if (m) pages.push(Number(m[1]));
    kind.set(what, pages);
  }
  return [...byKind].map(([kind, details]) => {
    const lines = [...details].map(([what, pages]) => (pages.length ? `${pageList(pages)}: ${what}` : what));
    const count = [...details.values()].reduce((n, pages) => n + Math.max(1, pages.length), 0);
    const listed = lines.slice(0, MAX_LISTED).join('; ');
    const detail = lines.length > MAX_LISTED ? `${listed}; and ${lines.length - MAX_LISTED} more problems` : listed;
    return { kind, detail, count };
  });
}

/** "page 3", "pages 1–4, 7" */
function pageList(pages: number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(j > i ? `${sorted[i]}–${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return `${sorted.length === 1 ? 'page' : 'pages'} ${runs.join(', ')}`;
}
