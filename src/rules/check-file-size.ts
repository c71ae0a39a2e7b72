import { formatBytes } from '../pdf/units.js';
import type { Check } from './context.js';
import { grouped } from '../util/text.js';

const mb = formatBytes;

/** file-too-large: the file is over the service's 50 MB limit. */
export const checkFileSize: Check = ({ facts, limits }) => {
  // Whole bytes against a whole limit: no rounding to tolerate (threshold.ts). Where both round to
  // the same megabytes, the message writes the limit in bytes too ("50 MB (50,000,001 bytes), over
  // the service's limit of 50 MB (50,000,000 bytes)").
  if (facts.bytes <= limits.maxFileBytes) return [];
  const limit = mb(limits.maxFileBytes) === mb(facts.bytes) ? `${mb(limits.maxFileBytes)} (${grouped(limits.maxFileBytes)} bytes)` : mb(limits.maxFileBytes);
  return [
    {
      code: 'file-too-large',
      page: null,
      layer: null,
      message: `The file is ${mb(facts.bytes)} (${grouped(facts.bytes)} bytes), over the service's limit of ${limit}: it may be rejected or delay processing. Recompress its images (JPEG quality 85–90 at ${limits.productionPpi} ppi is plenty for textiles).`,
      expected: `≤ ${limits.maxFileBytes} bytes`,
      actual: `${facts.bytes} bytes`,
      details: { bytes: facts.bytes, maxBytes: limits.maxFileBytes },
    },
  ];
};
