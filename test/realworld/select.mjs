#!/usr/bin/env node
/**
 * Chooses the real-world corpus from public test repositories mirrored as bare git snapshots and
 * writes test/realworld/manifest.json (repo, path, commit, sha256, licence). Run once by a person
 * when the selection changes; the files themselves are never committed (extract.mjs brings them).
 *
 *   node test/realworld/select.mjs [--second] [MIRROR_DIR]   (default /work/.mirror)
 *
 * The choice is deterministic: PDFs of at most 1.5 MB (4 MB in the second set), ordered by the
 * SHA-256 of their path, the first N of each repository, after the files the issues name (ALWAYS).
 * `--second` writes manifest-second.json: a second set from seven other projects' test suites
 * (PDFBox, pdf-lib, pdfplumber, py-pdf's sample files, OCRmyPDF, poppler's test data, Ghostscript's
 * examples) with the files issue 27 names, for the pixel and blank-page comparison too.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const second = process.argv.includes('--second');
const mirror = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? process.env.REALWORLD_MIRROR ?? '/work/.mirror';
/** Repository → how many files, and the licence its files are published under. */
const FIRST = {
  'mozilla/pdf.js': { take: 130, licence: 'Apache-2.0 (repository); test files from many public sources, see test/pdfs' },
  'veraPDF/veraPDF-corpus': { take: 80, licence: 'CC-BY-4.0' },
  'qpdf/qpdf': { take: 60, licence: 'Apache-2.0' },
  'pdfcpu/pdfcpu': { take: 50, licence: 'Apache-2.0' },
  'pymupdf/PyMuPDF': { take: 30, licence: 'AGPL-3.0 (repository test files)' },
  'py-pdf/pypdf': { take: 30, licence: 'BSD-3-Clause' },
  'pikepdf/pikepdf': { take: 20, licence: 'MPL-2.0 (test resources: see the repository’s LICENSES)' },
};
const SECOND = {
  'apache/pdfbox': { take: 70, licence: 'Apache-2.0 (repository); test files from many public sources' },
  'Hopding/pdf-lib': { take: 40, licence: 'MIT (repository); test assets from many public sources' },
  'jsvine/pdfplumber': { take: 40, licence: 'MIT (repository); test PDFs are public documents' },
  'py-pdf/sample-files': { take: 30, licence: 'CC-BY-SA-4.0' },
  'ocrmypdf/OCRmyPDF': { take: 35, licence: 'MPL-2.0 (repository); test resources under the licences in LICENSES/' },
  'freedesktop/poppler-test': { take: 45, licence: 'GPL-2.0 (repository); test files from many public sources' },
  'ArtifexSoftware/ghostpdl': { take: 6, licence: 'AGPL-3.0 (repository examples)', under: 'examples/' },
  'mozilla/pdf.js': { take: 0, licence: 'Apache-2.0 (repository); test files from many public sources, see test/pdfs' },
};
const REPOS = second ? SECOND : FIRST;
const MAX_BYTES = second ? 4_000_000 : 1_500_000;
/** Files the issues name as examples of each class: always in the corpus (issue 13, then issue 27 for the second set). */
const ALWAYS = second
  ? {
      'mozilla/pdf.js': ['test/pdfs/evaljs.pdf', 'test/pdfs/issue21068.pdf', 'test/pdfs/transparency_group.pdf', 'test/pdfs/issue14297.pdf'],
      'apache/pdfbox': ['pdfbox/src/test/resources/org/apache/pdfbox/multipdf/AcrobatMerge-SameNameNode.pdf'],
    }
  : {
      'mozilla/pdf.js': ['test/pdfs/issue12963.pdf', 'test/pdfs/red_stamp.pdf', 'test/pdfs/issue7200.pdf'],
      'pikepdf/pikepdf': ['tests/resources/form_dd0293.pdf'],
    };

const git = (dir, ...args) => execFileSync('git', ['-C', dir, ...args], { maxBuffer: 256 * 1024 * 1024 });
const files = [];
for (const [repo, { take, licence, under = '' }] of Object.entries(REPOS)) {
  const dir = join(mirror, repo.replace('/', '+'), 'repo');
  const commit = git(dir, 'rev-parse', 'HEAD').toString().trim();
  const candidates = git(dir, 'ls-tree', '-r', '-l', 'HEAD')
    .toString()
    .split('\n')
    .map((line) => /^\d+ blob ([0-9a-f]+)\s+(\d+)\t(.*)$/.exec(line))
    .filter((m) => m && /\.pdf$/i.test(m[3]) && m[3].startsWith(under) && Number(m[2]) > 200 && Number(m[2]) <= MAX_BYTES)
    .map((m) => ({ blob: m[1], size: Number(m[2]), path: m[3] }))
    .sort((a, b) => hash(a.path).localeCompare(hash(b.path)));
  const named = ALWAYS[repo] ?? [];
  candidates.sort((a, b) => Number(named.includes(b.path)) - Number(named.includes(a.path)));
  // The named files come first and count within `take` (a repository taken only for them: take 0).
  const limit = Math.max(take, named.length);
  let n = 0;
  for (const c of candidates) {
    if (n >= limit) break;
    const bytes = git(dir, 'cat-file', 'blob', c.blob);
    if (bytes.subarray(0, 40).toString('latin1').startsWith('version https://git-lfs')) continue;
    files.push({ id: `${repo.split('/')[1]}/${c.path}`, repo, path: c.path, commit, bytes: bytes.length, sha256: hash(bytes), licence });
    n++;
  }
}
writeFileSync(new URL(second ? './manifest-second.json' : './manifest.json', import.meta.url), `${JSON.stringify({ maxBytes: MAX_BYTES, files }, null, 1)}\n`);
console.log(`${files.length} files`);

function hash(data) {
  return createHash('sha256').update(data).digest('hex');
}
