import type { Check } from './context.js';
import type { Draft } from './finding.js';

/** file-not-pdf, pdf-damaged, pdf-too-complex and pdf-encrypted: whether the file can be read at all. */
export const checkDocument: Check = ({ facts }) => {
  const out: Draft[] = [];
  for (const p of facts.problems) {
    if (p.kind === 'not-pdf') {
      out.push({
        code: 'file-not-pdf',
        page: null,
        layer: null,
        message: `The file is not a PDF: ${p.detail}. The service accepts PDF files only: export or convert the design to PDF (print-preflight assemble turns images into a compliant PDF).`,
        expected: 'a PDF file',
        actual: p.detail,
      });
    } else if (p.kind === 'repaired') {
      out.push({
        code: 'pdf-repaired',
        page: null,
        layer: null,
        message: `The PDF is damaged but readable: ${p.detail}. Readers rebuild it on the fly; some production systems refuse such files. Export it again, or re-save it in a PDF editor.`,
        expected: 'an intact cross-reference table',
        actual: p.detail,
      });
    } else if (p.kind === 'timeout') {
      out.push({
        code: 'pdf-timeout',
        page: null,
        layer: null,
        message: `The PDF could not be inspected within the time limit: ${p.detail}. A file this slow to read is likely to stall production too: flatten or simplify it and export it again.`,
        expected: 'inspection within the time limit',
        actual: p.detail,
      });
    } else if (p.kind === 'too-complex') {
      out.push({
        code: 'pdf-too-complex',
        page: null,
        layer: null,
        message: `The PDF is too complex to inspect within the limits: ${p.detail}. Flatten or simplify the file and export it again.`,
        expected: 'a file that can be inspected within the limits',
        actual: p.detail,
      });
    } else {
      out.push({
        code: 'pdf-damaged',
        page: null,
        layer: null,
        message: `The PDF is damaged: ${p.detail}. Export it again from the design tool, or upload it again if the copy was cut short.`,
        expected: 'a complete, readable PDF',
        actual: p.detail,
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
