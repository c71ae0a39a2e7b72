/**
 * The edit log in the fixed file: its XMP metadata (ISO 16684-1) names the original's SHA-256, the
 * tool and version, and each change with its page and measured difference, in print-preflight's own
 * namespace (docs/edit-log.md), so a printer's tools (exiftool, pikepdf, Acrobat) read what was done.
 * The file's own XMP is kept: the log is one rdf:Description added to it (an earlier log replaced).
 */
import type { PDFDocument } from '../pdf/pdf-lib-document.js';
import { PDFName, PDFRawStream } from '../pdf/pdf-lib.js';
import { resolve } from '../pdf/objects.js';
import { type DecodeBudget, BudgetExceededError } from '../pdf/decode-budget.js';
import { decodeStream } from '../pdf/streams.js';
import { packageVersion } from '../util/package-root.js';
import type { Change } from '../model/change.js';

/** The edit log's XMP namespace, and the prefix it is written with. */
export const EDIT_LOG_NAMESPACE = 'http://ns.print-preflight.org/edits/1.0/';
export const EDIT_LOG_PREFIX = 'ppedit';

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** The rdf:Description of the log. */
export function editLogDescription(originalSha256: string, changes: readonly Change[]): string {
  const p = EDIT_LOG_PREFIX;
  const items = changes.map((c) => {
    const d = c.difference;
    const measured = d ? `<${p}:meanDeltaE00>${d.meanDeltaE00}</${p}:meanDeltaE00><${p}:p95DeltaE00>${d.p95DeltaE00}</${p}:p95DeltaE00><${p}:changedShare>${d.changedShare}</${p}:changedShare>` : '';
    const page = c.page === null ? '' : `<${p}:page>${c.page}</${p}:page>`;
    return `<rdf:li rdf:parseType="Resource"><${p}:code>${escapeXml(c.code)}</${p}:code>${page}<${p}:action>${escapeXml(c.action)}</${p}:action>${measured}</rdf:li>`;
  });
  return [
    `<rdf:Description rdf:about="" xmlns:${p}="${EDIT_LOG_NAMESPACE}">`,
    `<${p}:originalSha256>${originalSha256}</${p}:originalSha256>`,
    `<${p}:tool>print-preflight</${p}:tool>`,
    `<${p}:toolVersion>${escapeXml(packageVersion())}</${p}:toolVersion>`,
    `<${p}:changes><rdf:Seq>${items.join('')}</rdf:Seq></${p}:changes>`,
    '</rdf:Description>',
  ].join('\n');
}

const PACKET_START = '<?xpacket begin="\u{feff}" id="W5M0MpCehiHzreSzNTczkc9d"?>';
const PACKET_END = '<?xpacket end="w"?>';

/**
 * Writes the log into `doc`'s XMP metadata (the catalog's /Metadata), keeping what the file's own
 * XMP said; a metadata stream that cannot be read (or has no rdf:RDF) is replaced by a new packet.
 * @example
 * writeEditLog(doc, sha256Hex(original), outcome.changes, budget);
 */
export function writeEditLog(doc: PDFDocument, originalSha256: string, changes: readonly Change[], budget: DecodeBudget): void {
  const context = doc.context;
  const description = editLogDescription(originalSha256, changes);
  let existing: string | undefined;
  const stream = resolve(context, doc.catalog.get(PDFName.of('Metadata')));
  if (stream instanceof PDFRawStream) {
    try {
      existing = new TextDecoder('utf-8', { fatal: false }).decode(decodeStream(context, stream, { maxBytes: 4 * 1024 * 1024, budget, what: 'the XMP metadata' }));
    } catch (error) {
      if (error instanceof BudgetExceededError) throw error;
    }
  }
  let xmp: string;
  if (existing?.includes('</rdf:RDF>')) {
    // An earlier log (a file fixed twice) gives way to this one.
    const withoutOld = existing.replace(new RegExp(`<rdf:Description[^>]*xmlns:${EDIT_LOG_PREFIX}="[^"]*"[^>]*>[\\s\\S]*?</rdf:Description>\\s*`, 'g'), '');
    xmp = withoutOld.replace('</rdf:RDF>', `${description}\n</rdf:RDF>`);
  } else {
    xmp = [PACKET_START, '<x:xmpmeta xmlns:x="adobe:ns:meta/">', '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">', description, '</rdf:RDF>', '</x:xmpmeta>', PACKET_END].join('\n');
  }
  const metadata = context.stream(new TextEncoder().encode(xmp), { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), context.register(metadata));
}
