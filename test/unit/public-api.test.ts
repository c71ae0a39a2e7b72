/**
 * The public face, chosen (issue 47): the library entry exports at most 60 runtime names, and every
 * runtime name of the entries a user imports from (`print-preflight`, `/order-service`, `/customer`,
 * `/schemas`) has JSDoc with an @example, read by the TypeScript compiler as the API reference
 * reads it. Names that are machinery (pool tasks, rule settling, the batch's discovery) stay off the
 * library entry; every entry is named in package.json's `exports` and in typedoc.json.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve('.');
const ENTRIES = {
  'print-preflight': 'src/index.ts',
  'print-preflight/order-service': 'src/order-service.ts',
  'print-preflight/customer': 'src/customer.ts',
  'print-preflight/schemas': 'src/schemas.ts',
} as const;

async function runtimeNames(file: string): Promise<string[]> {
  return Object.keys((await import(/* @vite-ignore */ join(root, file))) as object).sort();
}

describe('the public API', () => {
  it('the library entry: at most 60 runtime names, none of them machinery, the order client elsewhere', async () => {
    const names = await runtimeNames(ENTRIES['print-preflight']);
    console.log(`print-preflight exports ${names.length} runtime names`);
    expect(names.length).toBeLessThanOrEqual(60);
    for (const core of ['check', 'preflight', 'checkAndFix', 'fix', 'assemble', 'preflightFolder', 'loadProfiles', 'renderHtml', 'PreflightError', 'ReportSchema']) expect(names, core).toContain(core);
    for (const internal of ['settleBounded', 'settleFinding', 'RenderTaskSchema', 'TransformTaskSchema', 'TaskFailure', 'UI_KEYS', 'readManifest', 'runChecks', 'buildReport'])
      expect(names, internal).not.toContain(internal);
    const orderService = await runtimeNames(ENTRIES['print-preflight/order-service']);
    for (const n of ['OrderServiceClient', 'webhookHandler', 'verifyWebhook', 'buildOrderPayload']) {
      expect(orderService, n).toContain(n);
      expect(names, n).not.toContain(n);
    }
  });

  it('each entry is in package.json exports (types and code) and in the API reference', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> };
    const typedoc = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as { entryPoints: string[] };
    for (const [specifier, file] of Object.entries(ENTRIES)) {
      const key = specifier.replace('print-preflight', '.');
      const built = file.replace(/^src\//, './dist/src/').replace(/\.ts$/, '');
      expect(pkg.exports[key], specifier).toEqual({ types: `${built}.d.ts`, default: `${built}.js` });
      expect(typedoc.entryPoints, specifier).toContain(file);
    }
  });

  it('every runtime name of those entries has JSDoc with an @example', { timeout: 120_000 }, async () => {
    const files = Object.values(ENTRIES).map((f) => join(root, f));
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    });
    const checker = program.getTypeChecker();
    const missing: string[] = [];
    let checked = 0;
    for (const [specifier, file] of Object.entries(ENTRIES)) {
      const runtime = new Set(await runtimeNames(file));
      const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(join(root, file))!)!;
      for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
        if (!runtime.has(symbol.name)) continue;
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const summary = ts.displayPartsToString(target.getDocumentationComment(checker)).trim();
        const example = target.getJsDocTags(checker).some((t) => t.name === 'example' && ts.displayPartsToString(t.text).trim().length > 0);
        if (!summary || !example) missing.push(`${specifier}: ${symbol.name}${summary ? '' : ' (no description)'}${example ? '' : ' (no @example)'}`);
        checked++;
      }
      // Every runtime name was found by the compiler too (nothing exported that it cannot see).
      expect(checker.getExportsOfModule(moduleSymbol).filter((s) => runtime.has(s.name)).length, specifier).toBe(runtime.size);
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });
});
