/** `print-preflight serve` flags and PRINT_PREFLIGHT_* variables, and its refusals (exit 2). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { serveOptionsFrom } from '../../src/cli/serve.js';

describe('serveOptionsFrom', () => {
  it('reads every option from PRINT_PREFLIGHT_* variables', () => {
    expect(
      serveOptionsFrom([], {
        PRINT_PREFLIGHT_PORT: '9090',
        PRINT_PREFLIGHT_HOST: '0.0.0.0',
        PRINT_PREFLIGHT_DATA: '/srv/data',
        PRINT_PREFLIGHT_API_KEY: 'key-number-one, key-number-two',
        PRINT_PREFLIGHT_WORKERS: '3',
        PRINT_PREFLIGHT_RETENTION_DAYS: '2.5',
        PRINT_PREFLIGHT_PROFILES: '/srv/profiles',
        PRINT_PREFLIGHT_CALLBACK_SECRET: 'shh',
        PRINT_PREFLIGHT_ALLOW_HOST: 'files.internal,10.0.0.5',
        PRINT_PREFLIGHT_MAX_UPLOAD_MB: '20',
        PRINT_PREFLIGHT_MAX_RUNNING: '4',
        PRINT_PREFLIGHT_MAX_QUEUED: '300',
        PRINT_PREFLIGHT_UPLOADS_PER_MINUTE: '120',
        PRINT_PREFLIGHT_MAX_ORDER_SOURCES: '20',
        PRINT_PREFLIGHT_MIN_FREE_MB: '100',
        PRINT_PREFLIGHT_ADMIN_KEY: 'admin-key-0001',
        PRINT_PREFLIGHT_TENANT_METRICS: 'true',
        PRINT_PREFLIGHT_FRAME_ANCESTORS: "'self' https://admin.example.com",
        PRINT_PREFLIGHT_ORDER_SERVICE: 'https://api.example.com/v2/integration',
        PRINT_PREFLIGHT_ORDER_TOKEN: 'tok',
        PRINT_PREFLIGHT_ORDER_APP_KEY: 'app',
        PRINT_PREFLIGHT_LOG_LEVEL: 'warn',
        PRINT_PREFLIGHT_FIXED_RETENTION_DAYS: '90',
        PRINT_PREFLIGHT_PUBLIC_URL: 'https://preflight.example.com',
      }),
    ).toEqual({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/srv/data',
      apiKeys: ['key-number-one', 'key-number-two'],
      workers: 3,
      retentionDays: 2.5,
      fixedRetentionDays: 90,
      publicUrl: 'https://preflight.example.com',
      profiles: '/srv/profiles',
      callbackSecret: 'shh',
      allowHosts: ['files.internal', '10.0.0.5'],
      maxUploadBytes: 20_000_000,
      maxRunningPerTenant: 4,
      maxQueuedPerTenant: 300,
      uploadsPerMinutePerTenant: 120,
      maxOrderSources: 20,
      minFreeBytes: 100_000_000,
      adminKeys: ['admin-key-0001'],
      tenantMetrics: true,
      frameAncestors: ["'self'", 'https://admin.example.com'],
      orderService: { baseUrl: 'https://api.example.com/v2/integration', accessToken: 'tok', applicationKey: 'app' },
      logLevel: 'warn',
    });
  });

  it('flags win over variables; repeatable flags collect', () => {
    const o = serveOptionsFrom(['--port', '1234', '--api-key', 'flag-key-0001', '--api-key', 'flag-key-0002'], { PRINT_PREFLIGHT_PORT: '9090', PRINT_PREFLIGHT_API_KEY: 'env-key-0001' });
    expect(o.port).toBe(1234);
    expect(o.apiKeys).toEqual(['flag-key-0001', 'flag-key-0002']);
  });

  it.each([
    [['--port', '70000'], /--port needs a whole number from 0 to 65535/],
    [['--workers', '0'], /--workers/],
    [['--api-key', 'short'], /at least 8 characters/],
    [['--log-level', 'loud'], /--log-level must be one of/],
    [['--order-service', 'https://x.example'], /needs --order-token and --order-app-key/],
    [['--nope'], /unknown option --nope/],
    [['--public-url', 'ftp://x.example'], /--public-url must be an http\(s\) address/],
    [['--public-url', 'https://x.example/?a=1'], /without query or fragment/],
    [['--fixed-retention-days', '0'], /--fixed-retention-days/],
    [['extra'], /takes no arguments/],
  ])('%j is a usage error', (args, message) => {
    expect(() => serveOptionsFrom(args, {})).toThrow(UsageError);
    expect(() => serveOptionsFrom(args, {})).toThrow(message);
  });
});

describe('print-preflight serve', () => {
  it('refuses a public address without an API key: exit 2 with the reason', () => {
    const run = spawnSync(process.execPath, ['bin/print-preflight.js', 'serve', '--host', '0.0.0.0', '--port', '0', '--data', '/tmp/pp-serve-refused'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 without an API key/);
  });

  it('is listed in the help, and has its own', () => {
    expect(spawnSync(process.execPath, ['bin/print-preflight.js', '--help'], { encoding: 'utf8' }).stdout).toMatch(/^ {2}serve /m);
    const help = spawnSync(process.execPath, ['bin/print-preflight.js', 'serve', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('PRINT_PREFLIGHT_API_KEY');
  });
});
