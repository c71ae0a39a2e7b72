/**
 * Signed URLs (S3, CloudFront, Google Cloud Storage, Azure SAS) stop working when they expire; the
 * service needs the URL for the whole production process. Finds the expiry where the URL says it.
 */

export interface SignedUrl {
  provider: 'Amazon S3' | 'Amazon CloudFront' | 'Google Cloud Storage' | 'Azure Storage';
  /** Expiry time, when the URL states it. */
  expires: Date | null;
}

function amzDate(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
}

function epoch(s: string | null): Date | null {
  return s && /^\d{9,11}$/.test(s) ? new Date(Number(s) * 1000) : null;
}

/** Recognises a signed URL by its query parameters (names are case-insensitive). */
export function signedUrl(url: URL): SignedUrl | null {
  const q = new Map<string, string>();
  for (const [k, v] of url.searchParams) q.set(k.toLowerCase(), v);
  const has = (...keys: string[]) => keys.every((k) => q.has(k));
  if (has('x-amz-signature') || has('x-amz-credential')) {
    const start = amzDate(q.get('x-amz-date') ?? '');
    const seconds = Number(q.get('x-amz-expires'));
    return { provider: 'Amazon S3', expires: start && Number.isFinite(seconds) ? new Date(start.getTime() + seconds * 1000) : null };
  }
  if (has('x-goog-signature') || has('x-goog-credential')) {
    const start = amzDate(q.get('x-goog-date') ?? '');
    const seconds = Number(q.get('x-goog-expires'));
    return { provider: 'Google Cloud Storage', expires: start && Number.isFinite(seconds) ? new Date(start.getTime() + seconds * 1000) : null };
  }
  if (has('googleaccessid', 'signature')) return { provider: 'Google Cloud Storage', expires: epoch(q.get('expires') ?? null) };
  if (has('awsaccesskeyid', 'signature')) return { provider: 'Amazon S3', expires: epoch(q.get('expires') ?? null) };
  if (has('key-pair-id') && (has('signature') || has('policy'))) return { provider: 'Amazon CloudFront', expires: epoch(q.get('expires') ?? null) };
  if (has('sig') && (has('se') || has('sv'))) {
    const se = q.get('se');
    const d = se ? new Date(se) : null;
    return { provider: 'Azure Storage', expires: d && !Number.isNaN(d.getTime()) ? d : null };
  }
  return null;
}
