/**
 * pdf-lib parses object streams (/Type /ObjStm) while loading, before anyone knows the file's
 * key, so in an encrypted file that opens without a password their objects are lost. Once the key
 * is known, this finds those streams in the raw bytes, decrypts them and parses their objects into
 * the context. Objects defined directly in the file keep precedence.
 */
import { PDFObjectParser, PDFObjectStreamParser, PDFRawStream, type PDFContext, type PDFObject, type PDFRef } from './pdf-lib.js';
import { N, nameOf, resolve } from './objects.js';
import type { StreamDecryptor } from './streams.js';

export async function recoverObjectStreams(bytes: Uint8Array, context: PDFContext, decrypt: StreamDecryptor): Promise<number> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const existing: [PDFRef, PDFObject][] = context.enumerateIndirectObjects();
  const header = /(\d+)\s+(\d+)\s+obj\b/g;
  let recovered = 0;
  for (let m = header.exec(text); m; m = header.exec(text)) {
    const start = m.index + m[0].length;
    if (!text.slice(start, start + 1024).includes('/ObjStm')) continue;
    try {
      const obj = PDFObjectParser.forBytes(bytes.subarray(start), context).parseObject();
      if (!(obj instanceof PDFRawStream) || nameOf(resolve(context, obj.dict.get(N('Type')))) !== 'ObjStm') continue;
      const plain = decrypt(obj.contents, { objectNumber: Number(m[1]), generationNumber: Number(m[2]) });
      await PDFObjectStreamParser.forStream(PDFRawStream.of(obj.dict, plain)).parseIntoContext();
      recovered++;
    } catch {
      // A damaged object stream: its objects stay missing and the page checks say what is lost.
    }
  }
  for (const [ref, obj] of existing) context.assign(ref, obj);
  return recovered;
}
