/**
 * The packages as a user gets them: `npm pack` of print-preflight and of print-preflight-server
 * (packages/server), each installed into an empty project offline (the npm cache and the tarballs
 * only: test/helpers/offline-install.ts), then used the way their READMEs say.
 *
 * - print-preflight alone: `preflight()`, the `print-preflight` bin and docs/example-order-flow.mjs
 *   work, each entry point of `exports` loads (the main one at most 60 names), no server package
 *   (fastify, @fastify/multipart, BullMQ, ioredis, prom-client) is installed, its types compile
 *   without them, and `serve` / `startService()` say what to install (MissingDependencyError);
 * - print-preflight-server: its bin serves a check over HTTP, its module exports the service and
 *   fleet API;
 * - each tarball: a LICENSE, no source map, every link of every Markdown file resolving inside the
 *   package (or an absolute URL), `npm publish --dry-run` without a warning.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskUsage, npmCiOffline, writeOfflineProject, type PackedPackage } from '../helpers/offline-install.js';

const root = resolve('.');
const SAMPLE = join(root, 'test/corpus/files/img2pdf-duvet-half-scale.pdf');
const SERVER_PACKAGES = ['fastify', '@fastify/multipart', 'bullmq', 'ioredis', 'prom-client'];
/**
 * The size an empty app's node_modules may reach with print-preflight alone. Measured: 148.6 MB on
 * disk (`du -sk`), 138.3 MB apparent; the floor is the packages the checks run on — pdf.js 41 MB,
 * @napi-rs/canvas (pdf.js's canvas in Node) 33 MB, pdf-lib 24 MB, sharp + libvips 20 MB, PDFium 11
 * MB, zod 8 MB. The server stack added 30 MB more. A bound, to catch a heavy dependency slipping in.
 */
const MAX_APP_BYTES = 160e6;

let work: string;
let core: PackedPackage;
let server: PackedPackage;
const files: Record<string, string[]> = {};

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function pack(dir: string): PackedPackage {
  const r = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], dir);
  expect(r.status, r.stderr).toBe(0);
  const [info] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[];
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackedPackage['manifest'];
  files[manifest.name] = info!.files.map((f) => f.path);
  return { tarball: join(work, info!.filename), manifest };
}

/** A new project folder holding copies of the tarballs (the lockfile names them by file name). */
function project(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const p of [core, server]) copyFileSync(p.tarball, join(dir, p.tarball.split('/').at(-1)!));
  return dir;
}

beforeAll(() => {
  expect(existsSync(join(root, 'dist/src/index.js')), 'npm run build first (npm test does)').toBe(true);
  work = mkdtempSync(join(tmpdir(), 'pp-pack-'));
  core = pack(root);
  server = pack(join(root, 'packages/server'));
}, 120_000);

describe('the packed tarballs', () => {
  it.each(['print-preflight', 'print-preflight-server'])('%s: a LICENSE, no source map, no test or source file', (name) => {
    const list = files[name]!;
    expect(list).toContain('LICENSE');
    expect(readFileSync(join(name === 'print-preflight' ? root : join(root, 'packages/server'), 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(list.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(list.filter((f) => /^(src|test|bench)\//.test(f))).toEqual([]);
  });

  it.each(['print-preflight', 'print-preflight-server'])('%s: every link and image of every Markdown file resolves inside the package or is an absolute URL', (name) => {
    const list = new Set(files[name]);
    const base = name === 'print-preflight' ? root : join(root, 'packages/server');
    const markdown = [...list].filter((f) => f.endsWith('.md'));
    expect(markdown).toContain('README.md');
    const broken: string[] = [];
    let links = 0;
    for (const md of markdown) {
      const text = readFileSync(join(base, md), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      const targets = [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g), ...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      for (const t of targets) {
        links++;
        if (/^[a-z][a-z0-9+.-]*:/i.test(t)) {
          if (!/^(https|mailto):/.test(t)) broken.push(`${md}: ${t} (not https)`);
          continue;
        }
        const path = t.split('#')[0]!;
        if (!path) continue; // an anchor in the same file
        const target = normalize(join(dirname(md), decodeURIComponent(path))).replace(/\/$/, '');
        if (!list.has(target) && ![...list].some((f) => f.startsWith(`${target}/`))) broken.push(`${md}: ${t}`);
      }
    }
    expect(broken).toEqual([]);
    expect(links).toBeGreaterThan(0);
  });

  it.each(['print-preflight', 'print-preflight-server'])(
    '%s: npm publish --dry-run says nothing but notices',
    (name) => {
      const dir = name === 'print-preflight' ? root : join(root, 'packages/server');
      // A registry on a closed loopback port, with a token: a dry run reaches no network, and npm has
      // no reason to warn about a login.
      const r = run('npm', ['publish', '--dry-run', '--ignore-scripts', '--offline', '--fetch-retries=0', '--registry', 'http://127.0.0.1:9/', '--//127.0.0.1:9/:_authToken=dry-run'], dir);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.trim() && !l.startsWith('npm notice'))).toEqual([]);
      expect(r.stderr).toContain(`${name}@`);
    },
    120_000,
  );

  it.each(['print-preflight', 'print-preflight-server'])('%s names its repository, homepage and where to report a problem (SECURITY.md sends reporters there)', (name) => {
    const { manifest } = name === 'print-preflight' ? core : server;
    const m = manifest as typeof manifest & { repository?: { type?: string; url?: string; directory?: string }; homepage?: string; bugs?: { url?: string } };
    expect(m.repository?.type).toBe('git');
    expect(m.repository?.url).toMatch(/^git\+https:\/\/\S+\.git$/);
    expect(m.homepage).toMatch(/^https:\/\//);
    expect(m.bugs?.url).toMatch(/^https:\/\/\S+\/issues$/);
    // One project: both packages point at the same repository (the server's from its folder).
    expect(m.repository?.url).toBe((core.manifest as typeof m).repository?.url);
    if (name === 'print-preflight-server') expect(m.repository?.directory).toBe('packages/server');
    expect(readFileSync(join(root, 'SECURITY.md'), 'utf8')).toMatch(/the contact in `package.json`/);
  });

  it("print-preflight-server pins the server stack within print-preflight's optional peer ranges, at the versions this repository tests", () => {
    const peers = core.manifest.peerDependencies!;
    const meta = core.manifest.peerDependenciesMeta!;
    const repo = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; dependencies: Record<string, string> };
    for (const name of SERVER_PACKAGES) {
      expect(meta[name]?.optional, name).toBe(true);
      expect(repo.dependencies[name], `${name} is no dependency of print-preflight`).toBeUndefined();
      const pinned = server.manifest.dependencies![name]!;
      expect(pinned, name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(pinned.split('.')[0], name).toBe(peers[name]!.replace(/^\^/, '').split('.')[0]);
      expect(repo.devDependencies[name], `${name}: the repository tests the pinned version`).toBe(pinned);
    }
    expect(server.manifest.dependencies!['print-preflight']).toBe(core.manifest.version);
    expect(server.manifest.version).toBe(core.manifest.version);
  });
});

describe('print-preflight alone, in an empty app', () => {
  let app: string;
  let install: ReturnType<typeof npmCiOffline>;

  beforeAll(() => {
    app = project('library-app');
    writeOfflineProject(app, join(root, 'package-lock.json'), [core]);
    install = npmCiOffline(app);
  }, 600_000);

  it('installs offline without a warning about engines, and without any server package', () => {
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/EBADENGINE/);
    for (const name of SERVER_PACKAGES) expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
    const installed = readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'));
    expect(installed).toContain('print-preflight');
    const { diskBytes, apparentBytes } = diskUsage(join(app, 'node_modules'));
    console.log(`empty app with print-preflight: node_modules ${(diskBytes / 1e6).toFixed(1)} MB on disk, ${(apparentBytes / 1e6).toFixed(1)} MB apparent`);
    expect(diskBytes).toBeLessThanOrEqual(MAX_APP_BYTES);
  });

  it('preflight() checks the sample', () => {
    writeFileSync(
      join(app, 'check.mjs'),
      `import { preflight, closeDefaultPool } from 'print-preflight';\n` +
        `const report = await preflight(process.argv[2], { product: 'duvet-cover', variant: '200x200' });\n` +
        `await closeDefaultPool();\n` +
        `console.log(JSON.stringify({ verdict: report.verdict, codes: report.findings.map((f) => f.code) }));\n`,
    );
    const r = run(process.execPath, ['check.mjs', SAMPLE], app);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { verdict: string; codes: string[] };
    expect(out.verdict).toBe('fail');
    expect(out.codes).toContain('image-low-resolution');
  }, 120_000);

  it('docs/example-order-flow.mjs runs from the installed package as docs/orders.md says (its sample shipped beside it)', () => {
    // The sample is the corpus's reportlab file, copied: the same bytes, so its provenance holds.
    expect(readFileSync(join(root, 'docs/samples/t-shirt-M.pdf'))).toEqual(readFileSync(join(root, 'test/corpus/files/reportlab-tshirt-M-exact.pdf')));
    expect(files['print-preflight']).toEqual(expect.arrayContaining(['docs/example-order-flow.mjs', 'docs/samples/t-shirt-M.pdf']));
    const r = run(process.execPath, ['node_modules/print-preflight/docs/example-order-flow.mjs'], app);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/preflight: http:\/\/127\.0\.0\.1:\d+\/designs\/2001\.pdf pass/);
    expect(r.stdout).toContain('order 1 created (SHOP-2001)');
    expect(r.stdout).toContain('webhooks: order.created unfulfilled, order.updated scheduled');
  }, 120_000);

  it('each entry point of package.json exports loads; the main one has at most 60 names', () => {
    const manifest = core.manifest as typeof core.manifest & { exports: Record<string, unknown> };
    const all = Object.keys(manifest.exports).filter((k) => !k.includes('*') && k !== './package.json' && k !== './cli');
    expect(all).toEqual(expect.arrayContaining(['.', './order-service', './customer', './schemas', './service', './fleet', './testing']));
    // The fleet's modules import BullMQ and ioredis, which this app has not installed: that entry
    // is loaded in print-preflight-server's app below.
    const entries = all.filter((k) => k !== './fleet');
    writeFileSync(
      join(app, 'entries.mjs'),
      `const out = {};\nfor (const e of ${JSON.stringify(entries.map((e) => e.replace(/^\./, 'print-preflight')))}) out[e] = Object.keys(await import(e)).length;\nconsole.log(JSON.stringify(out));\n`,
    );
    const r = run(process.execPath, ['entries.mjs'], app);
    expect(r.status, r.stderr).toBe(0);
    const counts = JSON.parse(r.stdout) as Record<string, number>;
    console.log(`runtime names per entry: ${JSON.stringify(counts)}`);
    for (const [entry, n] of Object.entries(counts)) expect(n, entry).toBeGreaterThan(0);
    expect(counts['print-preflight']).toBeLessThanOrEqual(60);
    // The order service's client lives on its own entry, not on the library's.
    const onMain = run(
      process.execPath,
      ['-e', "import('print-preflight').then((m) => console.log(['OrderServiceClient', 'settleBounded', 'RenderTaskSchema', 'UI_KEYS'].filter((n) => n in m).join(',')))"],
      app,
    );
    expect(onMain.stdout.trim()).toBe('');
  }, 120_000);

  it('the print-preflight bin checks the sample; serve and startService() name what to install', async () => {
    const check = run(join(app, 'node_modules/.bin/print-preflight'), ['check', SAMPLE, '--product', 'duvet-cover', '--variant', '200x200', '--json'], app);
    expect(check.status, check.stderr).toBe(1);
    expect((JSON.parse(check.stdout) as { verdict: string }).verdict).toBe('fail');

    const serve = run(join(app, 'node_modules/.bin/print-preflight'), ['serve', '--port', '0'], app);
    expect(serve.status).toBe(2);
    expect(serve.stderr).toMatch(/print-preflight serve: print-preflight serve needs fastify, @fastify\/multipart and prom-client, which are not installed/);
    expect(serve.stderr).toContain('npm install print-preflight-server');
    const worker = run(join(app, 'node_modules/.bin/print-preflight'), ['worker', '--redis', 'redis://127.0.0.1:9/0', '--data', app], app);
    expect(worker.status).toBe(2);
    expect(worker.stderr).toMatch(/needs bullmq, ioredis and prom-client/);

    writeFileSync(
      join(app, 'serve.mjs'),
      `import { startService, MissingDependencyError } from 'print-preflight/service';\n` +
        `try { await startService({ port: 0 }); console.log('started'); }\n` +
        `catch (e) { console.log(JSON.stringify({ typed: e instanceof MissingDependencyError, code: e.code, packages: e.packages })); }\n`,
    );
    const r = run(process.execPath, ['serve.mjs'], app);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ typed: true, code: 'ERR_MISSING_DEPENDENCY', packages: ['fastify', '@fastify/multipart', 'prom-client'] });
  }, 120_000);

  it('its types (the main entry, /order-service, /customer, /schemas, /testing) compile, strict and without skipLibCheck, with no server package installed; @internal stripped', () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(
      join(app, 'use.ts'),
      `import { preflight, type Report } from 'print-preflight';\n` +
        `import { buildOrderPayload, type OrderDraft } from 'print-preflight/order-service';\n` +
        `import { startFakeOrderService } from 'print-preflight/testing';\n` +
        `import { localizeReport, type Catalogue } from 'print-preflight/customer';\n` +
        `import { ReportSchema, jsonSchemas } from 'print-preflight/schemas';\n` +
        `import { PreflightPool } from 'print-preflight';\n` +
        `const pool = new PreflightPool({ maxThreads: 1 });\n` +
        `// @ts-expect-error the pool's task methods are internal: stripped from the published types\n` +
        `void pool.render;\n` +
        `await pool.destroy();\n` +
        `console.log(typeof localizeReport, typeof jsonSchemas, ReportSchema.shape.verdict, null as Catalogue | null);\n` +
        `const report: Report = await preflight('design.pdf', { sku: 'DUVET-COVER-200X200' });\n` +
        `declare const draft: OrderDraft;\n` +
        `const { payload } = await buildOrderPayload(draft);\n` +
        `console.log(report.verdict, payload.rows.length, typeof startFakeOrderService);\n`,
    );
    const r = run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', app, '--pretty', 'false'], app);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});

describe('print-preflight-server, in an empty app', () => {
  let app: string;
  let install: ReturnType<typeof npmCiOffline>;

  beforeAll(() => {
    app = project('server-app');
    // The override this repository keeps (fastify's light-my-request asks for a cookie
    // release that declares Node 22; the 1.x line has the same function).
    writeOfflineProject(app, join(root, 'package-lock.json'), [server], [core], { cookie: '^1.1.1' });
    install = npmCiOffline(app);
  }, 600_000);

  it('installs offline, with the server packages beside print-preflight', () => {
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/EBADENGINE/);
    for (const name of SERVER_PACKAGES) expect(existsSync(join(app, 'node_modules', name, 'package.json')), name).toBe(true);
    console.log(`empty app with print-preflight-server: node_modules ${(diskUsage(join(app, 'node_modules')).diskBytes / 1e6).toFixed(1)} MB on disk`);
  });

  it('exports the service and fleet API', () => {
    writeFileSync(
      join(app, 'api.mjs'),
      `import * as server from 'print-preflight-server';\nconsole.log(JSON.stringify(['startService', 'redisQueue', 'startFleetWorker', 'preflightFolderOnFleet', 'JobStore'].map((n) => typeof server[n])));\n`,
    );
    const r = run(process.execPath, ['api.mjs'], app);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['function', 'function', 'function', 'function', 'function']);
  });

  it('its types compile, strict and without skipLibCheck', () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(
      join(app, 'serve.ts'),
      `import { startService, redisQueue, type ServeOptions } from 'print-preflight-server';\n` +
        `const options: ServeOptions = { port: 8080, dataDir: '/mnt/shared/data', queue: redisQueue({ url: 'redis://127.0.0.1:6379/0' }) };\n` +
        `const service = await startService(options);\n` +
        `console.log(service.url);\n`,
    );
    const r = run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', app, '--pretty', 'false'], app);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('npx print-preflight-server serve answers a check over HTTP and stops on SIGTERM', async () => {
    const child = spawn(join(app, 'node_modules/.bin/print-preflight-server'), ['serve', '--port', '0', '--data', join(app, 'data'), '--workers', '1'], { cwd: app });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const url = await new Promise<string>((done, fail) => {
        child.stderr.on('data', () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
          if (m) done(m[1]!);
        });
        void exited.then(() => fail(new Error(`serve exited: ${err}`)));
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const form = new FormData();
      form.set('file', new Blob([readFileSync(SAMPLE)], { type: 'application/pdf' }), 'sample.pdf');
      form.set('sku', 'DUVET-COVER-200X200');
      const answer = await fetch(`${url}/v1/checks?wait=60`, { method: 'POST', body: form });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { verdict: string }).verdict).toBe('fail');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 180_000);
});

afterAll(() => {
  // The temp folder holds two installs (~330 MB): removed here, not left for the next run.
  if (work) spawnSync('rm', ['-rf', work]);
});
