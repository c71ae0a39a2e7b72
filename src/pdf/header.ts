/**
 * A file's `%PDF-` header: its version, whether bytes without one still hold PDF objects, and those
 * bytes with a header put in front — as qpdf, poppler and pdf.js read such a file, and as both the
 * check (inspect.ts) and the transforms (pdf-lib-document.ts) do.
 */

/** Finds "%PDF-x.y" in the first 1024 bytes; returns the version or null. */
export function pdfHeaderVersion(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  const at = head.indexOf('%PDF-');
  if (at < 0) return null;
  const m = /^%PDF-(\d+\.\d+)/.exec(head.slice(at));
  return m ? m[1]! : '?';
}

/** "1 0 obj" near the start, as in a PDF whose header was lost. */
export function looksLikePdfObjects(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  return /(^|[\r\n])\s*\d+\s+\d+\s+obj\b/.test(head);
}

/** The bytes with a `%PDF-` header put in front (a file that holds PDF objects without one, as readers read it). */
export function withHeader(bytes: Uint8Array): Uint8Array {
  const header = Buffer.from('%PDF-1.7\n', 'latin1');
  const out = new Uint8Array(header.length + bytes.length);
  out.set(header);
  out.set(bytes, header.length);
  return out;
}
