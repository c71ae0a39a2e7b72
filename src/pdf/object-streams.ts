/**
 * pdf-lib parses object streams (/Type /ObjStm) while loading, before anyone knows the file's
 * key, so in an encrypted file that opens without a password their objects are lost. Once the key
 * is known, this finds those streams in the raw bytes, decrypts them and parses their objects into
 * the context. Objects defined directly in the file keep precedence.
 *
 * Bounded like the parse itself: each candidate is parsed once, a header that lies inside an object
 * stream already read is not another candidate (object streams that overlap cannot make the search
 * quadratic), and decryption, decoding and parsing are charged to the file's budget.
 */
import { PDFObjectParser, PDFRawStream, withParseBudget, type PDFContext, type PDFObject, type PDFRef } from './pdf-lib.js';
import { N, nameOf, resolve } from './objects.js';
import { parseObjectStream } from './parse.js';
import { BudgetExceededError, type DecodeBudget } from './decode-budget.js';
import type { StreamDecryptor } from './streams.js';

export async function recoverObjectStreams(bytes: Uint8Array, context: PDFContext, decrypt: StreamDecryptor, budget: DecodeBudget): Promise<number> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const existing: [PDFRef, PDFObject][] = context.enumerateIndirectObjects();
  const header = /(\d+)\s+(\d+)\s+obj\b/g;
  let recovered = 0;
  // One parser over the whole file: its searches (for `endstream`…) are shared by every candidate.
  const parser = PDFObjectParser.forBytes(bytes, context) as unknown as { parseObject(): PDFObject; bytes: { offset(): number; moveTo(at: number): void } };
  try {
    for (let m = header.exec(text); m; m = header.exec(text)) {
      const start = m.index + m[0].length;
      budget.work(m[0].length);
      if (!text.slice(start, start + 1024).includes('/ObjStm')) continue;
      try {
        parser.bytes.moveTo(start);
        const obj = withParseBudget(budget, () => parser.parseObject());
        // Whatever this object spans is read: a header inside it is its data, not another object.
        header.lastIndex = Math.max(header.lastIndex, parser.bytes.offset());
        if (!(obj instanceof PDFRawStream) || nameOf(resolve(context, obj.dict.get(N('Type')))) !== 'ObjStm') continue;
        const ref = { objectNumber: Number(m[1]), generationNumber: Number(m[2]) };
        budget.chargeDecoded(obj.contents.length, `object stream ${ref.objectNumber} ${ref.generationNumber} R (decryption)`);
        const plain = decrypt(obj.contents, ref);
        withParseBudget(budget, () => parseObjectStream(context, PDFRawStream.of(obj.dict, plain), ref as PDFRef, budget));
        recovered++;
      } catch (error) {
        if (error instanceof BudgetExceededError) throw error;
        // A damaged object stream: its objects stay missing and the page checks say what is lost.
      }
    }
  } finally {
    for (const [ref, obj] of existing) context.assign(ref, obj);
  }
  return recovered;
}
