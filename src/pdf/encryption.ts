/**
 * The standard security handler (ISO 32000-2 §7.6.4): tells whether a file opens with an empty
 * user password, and if so derives the file key so that streams can be decrypted for inspection.
 * Revisions 2–4 (RC4 / AES-128) and 5–6 (AES-256) are supported.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { PDFContext, PDFDict } from 'pdf-lib';
import type { EncryptionFacts } from './facts.js';
import { bytesOf, get, getBool, getDict, getName, getNumber, items, PDFArray } from './objects.js';
import type { StreamDecryptor } from './streams.js';

const PAD = Uint8Array.from([
  0x28, 0xbf, 0x4e, 0x5e, 0x4e, 0x75, 0x8a, 0x41, 0x64, 0x00, 0x4e, 0x56, 0xff, 0xfa, 0x01, 0x08, 0x2e, 0x2e, 0x00, 0xb6, 0xd0, 0x68, 0x3e, 0x80, 0x2f, 0x0c, 0xa9, 0xfe, 0x64, 0x53, 0x69, 0x7a,
]);

type Method = 'None' | 'RC4' | 'AESV2' | 'AESV3';

export interface EncryptionInfo {
  facts: EncryptionFacts;
  /** Present when the file opens with the empty user password. */
  decryptor?: StreamDecryptor;
}

/** Reads the /Encrypt dictionary and tries the empty user password. */
export function analyseEncryption(context: PDFContext, encrypt: PDFDict, fileId: Uint8Array | undefined): EncryptionInfo {
  const filter = getName(context, encrypt, 'Filter') ?? '?';
  const v = getNumber(context, encrypt, 'V') ?? 0;
  const r = getNumber(context, encrypt, 'R') ?? 0;
  const streamMethod = methodOf(context, encrypt, v, 'StmF');
  const facts: EncryptionFacts = {
    filter,
    version: v,
    revision: r,
    method: describeMethod(streamMethod, v, getNumber(context, encrypt, 'Length')),
    needsPassword: true,
    decrypted: false,
  };
  if (filter !== 'Standard') return { facts }; // public-key or custom handlers need their own credentials
  const o = bytesOf(get(context, encrypt, 'O'));
  const u = bytesOf(get(context, encrypt, 'U'));
  if (!o || !u) return { facts };
  let key: Uint8Array | undefined;
  try {
    if (r >= 5) key = keyR56(context, encrypt, r, u);
    else if (r >= 2) key = keyR2to4(context, encrypt, v, r, o, u, fileId ?? new Uint8Array());
  } catch {
    key = undefined;
  }
  if (!key) return { facts };
  facts.needsPassword = false;
  const fileKey = key;
  const decryptor: StreamDecryptor = (data, ref) => {
    if (streamMethod === 'None') return data;
    if (streamMethod === 'AESV3') return aesDecrypt(fileKey, data);
    if (!ref) return data;
    const objectKey = objectKeyFor(fileKey, ref.objectNumber, ref.generationNumber, streamMethod === 'AESV2');
    return streamMethod === 'AESV2' ? aesDecrypt(objectKey, data) : rc4(objectKey, data);
  };
  facts.decrypted = true;
  return { facts, decryptor };
}

function methodOf(context: PDFContext, encrypt: PDFDict, v: number, which: 'StmF' | 'StrF'): Method {
  if (v < 4) return 'RC4';
  const name = getName(context, encrypt, which) ?? 'Identity';
  if (name === 'Identity') return 'None';
  const cf = getDict(context, getDict(context, encrypt, 'CF'), name);
  const cfm = getName(context, cf, 'CFM') ?? 'None';
  return cfm === 'V2' ? 'RC4' : cfm === 'AESV2' ? 'AESV2' : cfm === 'AESV3' ? 'AESV3' : 'None';
}

function describeMethod(method: Method, v: number, length: number | undefined): string {
  if (method === 'AESV3') return 'AES-256';
  if (method === 'AESV2') return 'AES-128';
  if (method === 'RC4') return `RC4-${v === 1 ? 40 : (length ?? 40)}`;
  return 'none (identity)';
}

const md5 = (...parts: Uint8Array[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

function keyR2to4(context: PDFContext, encrypt: PDFDict, v: number, r: number, o: Uint8Array, u: Uint8Array, id: Uint8Array) {
  const lengthBits = v === 1 ? 40 : (getNumber(context, encrypt, 'Length') ?? 40);
  const n = r === 2 ? 5 : Math.max(5, Math.min(16, Math.floor(lengthBits / 8)));
  const p = getNumber(context, encrypt, 'P') ?? 0;
  const pBytes = new Uint8Array(4);
  new DataView(pBytes.buffer).setInt32(0, p | 0, true);
  const encryptMetadata = getBool(context, encrypt, 'EncryptMetadata') ?? true;
  const parts = [PAD, o.subarray(0, 32), pBytes, id];
  if (r >= 4 && !encryptMetadata) parts.push(Uint8Array.from([0xff, 0xff, 0xff, 0xff]));
  let hash = md5(...parts);
  if (r >= 3) for (let i = 0; i < 50; i++) hash = md5(hash.subarray(0, n));
  const key = hash.subarray(0, n);
  if (r === 2) {
    const check = rc4(key, PAD);
    return equal(check, u.subarray(0, 32)) ? key : undefined;
  }
  let x = rc4(key, md5(PAD, id));
  for (let i = 1; i <= 19; i++)
    x = rc4(
      key.map((b) => b ^ i),
      x,
    );
  return equal(x.subarray(0, 16), u.subarray(0, 16)) ? key : undefined;
}

function keyR56(context: PDFContext, encrypt: PDFDict, r: number, u: Uint8Array) {
  const ue = bytesOf(get(context, encrypt, 'UE'));
  if (u.length < 48 || !ue) return undefined;
  const password = new Uint8Array();
  const hash = (salt: Uint8Array) => (r === 5 ? sha('sha256', password, salt) : hash2B(password, salt));
  if (!equal(hash(u.subarray(32, 40)), u.subarray(0, 32))) return undefined;
  const intermediate = hash(u.subarray(40, 48));
  const decipher = createDecipheriv('aes-256-cbc', intermediate, new Uint8Array(16));
  decipher.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([decipher.update(ue.subarray(0, 32)), decipher.final()]));
}

const sha = (alg: string, ...parts: Uint8Array[]) => {
  const h = createHash(alg);
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** Algorithm 2.B of ISO 32000-2 (revision 6 password hash), with no user data. */
function hash2B(password: Uint8Array, salt: Uint8Array): Uint8Array {
  let k = sha('sha256', password, salt);
  for (let round = 0; ; round++) {
    const block = new Uint8Array(password.length + k.length);
    block.set(password);
    block.set(k, password.length);
    const k1 = new Uint8Array(block.length * 64);
    for (let i = 0; i < 64; i++) k1.set(block, i * block.length);
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    cipher.setAutoPadding(false);
    const e = new Uint8Array(Buffer.concat([cipher.update(k1), cipher.final()]));
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i]!;
    k = sha(['sha256', 'sha384', 'sha512'][sum % 3]!, e);
    if (round >= 63 && e[e.length - 1]! <= round - 31) break;
  }
  return k.subarray(0, 32);
}

function objectKeyFor(key: Uint8Array, num: number, gen: number, aes: boolean): Uint8Array {
  const extra = Uint8Array.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff]);
  const salt = aes ? Uint8Array.from([0x73, 0x41, 0x6c, 0x54]) : new Uint8Array();
  return md5(key, extra, salt).subarray(0, Math.min(key.length + 5, 16));
}

function aesDecrypt(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (data.length < 32 || data.length % 16 !== 0) return new Uint8Array();
  const alg = key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc';
  const decipher = createDecipheriv(alg, key, data.subarray(0, 16));
  try {
    return new Uint8Array(Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]));
  } catch {
    const raw = createDecipheriv(alg, key, data.subarray(0, 16));
    raw.setAutoPadding(false);
    return new Uint8Array(Buffer.concat([raw.update(data.subarray(16)), raw.final()]));
  }
}

/** RC4 (not in OpenSSL 3's default provider, and tiny). */
export function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = new Uint8Array(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The first /ID string of the trailer. */
export function firstFileId(context: PDFContext, id: unknown): Uint8Array | undefined {
  return id instanceof PDFArray ? bytesOf(items(context, id)[0]) : undefined;
}
