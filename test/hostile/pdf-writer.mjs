/**
 * A tiny PDF writer for hand-made (and deliberately broken) files: numbered objects, an optional
 * cross-reference table, and a trailer. Used by the hostile corpus; no PDF library involved.
 */
const enc = new TextEncoder();

/** A stream object body: the dictionary entries (without << >>) and the data; /Length is added unless given. */
export function stream(dict, data, { length } = {}) {
  const bytes = typeof data === 'string' ? enc.encode(data) : data;
  const head = enc.encode(`<< ${dict} /Length ${length ?? bytes.length} >>\nstream\n`);
  return concat([head, bytes, enc.encode('\nendstream')]);
}

/**
 * Writes objects 1..n (bodies as strings or bytes). `xref`: 'ok', 'broken' (wrong offsets),
 * 'none' (no table, no startxref). `trailer`: extra trailer entries.
 */
export function writePdf(bodies, { root = 1, xref = 'ok', trailer = '', header = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', eof = true } = {}) {
  const parts = [enc.encode(header)];
  let offset = parts[0].length;
  const offsets = [];
  bodies.forEach((body, i) => {
    const b = typeof body === 'string' ? enc.encode(body) : body;
    const chunk = concat([enc.encode(`${i + 1} 0 obj\n`), b, enc.encode('\nendobj\n')]);
    offsets.push(offset);
    parts.push(chunk);
    offset += chunk.length;
  });
  const size = bodies.length + 1;
  if (xref !== 'none') {
    const entries = offsets.map((o) => `${String(xref === 'broken' ? o + 37 : o).padStart(10, '0')} 00000 n \n`).join('');
    const table = `xref\n0 ${size}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${size} /Root ${root} 0 R ${trailer} >>\nstartxref\n${xref === 'broken' ? offset + 11 : offset}\n${eof ? '%%EOF\n' : ''}`;
    parts.push(enc.encode(table));
  } else if (eof) {
    parts.push(enc.encode('%%EOF\n'));
  }
  return concat(parts);
}

export function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** A one-page document around `content`, with extra resources and extra objects appended (numbered from 5). */
export function onePage({ content = '0.2 0.4 0.8 rg 0 0 400 400 re f', resources = '', extra = [], pageExtra = '', catalogExtra = '', size = [400, 400], ...opts } = {}) {
  return writePdf(
    [
      `<< /Type /Catalog /Pages 2 0 R ${catalogExtra} >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size[0]} ${size[1]}] /Contents 4 0 R /Resources << ${resources} >> ${pageExtra} >>`,
      typeof content === 'string' ? stream('', content) : content,
      ...extra,
    ],
    opts,
  );
}
