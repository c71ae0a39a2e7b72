/**
 * The integrator's flow, written against the TypeScript SDK that @hey-api/openapi-ts generates from
 * the server's /openapi.json by the README's recipe (typescript.test.ts copies this file to
 * src/flow.ts of an ESM NodeNext project, generates the SDK into src/print-preflight/, compiles
 * both, then runs it). Only the generated code talks to the server.
 */
import { createClient, createConfig } from './print-preflight/client/index.js';
import { deleteCheck, getCheck, getCheckPagePreview, getCheckReportHtml, listProfiles, submitCheck, uploadCheck } from './print-preflight/sdk.gen.js';
import type { Check, Problem, ProfileListing } from './print-preflight/types.gen.js';

export interface FlowInput {
  baseUrl: string;
  apiKey: string;
  pdf: File;
  sku: string;
  /** A PDF the server may download. */
  url: string;
  /** A tanktop's layers as images the server may download (JSON `layers`), and the SKU. */
  layers: { sku: string; front: string; back: string };
}

export interface FlowResult {
  profiles: ProfileListing;
  uploaded: { status: number; check: Check };
  submitted: { status: number; check: Check };
  done: Check[];
  html: string;
  preview: { type: string; bytes: number };
  deleted: number;
  afterDelete: { status: number; problem: Problem };
  unknownSku: { status: number; problem: Problem };
  wrongKey: { status: number; problem: Problem };
  notPdfType: { status: number; problem: Problem };
  /** The check of the layers by URL, finished. */
  layered: Check;
  unknownLayer: { status: number; problem: Problem };
}

export async function runFlow(input: FlowInput): Promise<FlowResult> {
  const client = createClient(createConfig({ baseUrl: input.baseUrl, auth: () => input.apiKey }));
  const profiles = await listProfiles({ client, throwOnError: true });

  const up = await uploadCheck({ client, body: { file: input.pdf, sku: input.sku }, throwOnError: true });
  const byUrl = await submitCheck({ client, body: { url: input.url, sku: input.sku, raster: true }, query: { wait: 0 }, throwOnError: true });

  const byLayers = await submitCheck({
    client,
    body: { sku: input.layers.sku, layers: { front: { url: input.layers.front, fit: 'contain' }, back: { url: input.layers.back, fit: 'tile' } } },
    throwOnError: true,
  });

  const done: Check[] = [];
  for (const id of [up.data.id, byUrl.data.id, byLayers.data.id]) {
    for (let tries = 0; ; tries++) {
      const { data } = await getCheck({ client, path: { id }, throwOnError: true });
      if (data.status === 'done' || data.status === 'error') {
        done.push(data);
        break;
      }
      if (tries > 600) throw new Error(`check ${id} still ${data.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const id = up.data.id;
  const html = await getCheckReportHtml({ client, path: { id }, parseAs: 'text', throwOnError: true });
  const preview = await getCheckPagePreview({ client, path: { id, n: 1 }, parseAs: 'blob', throwOnError: true });
  const previewBlob = preview.data as Blob;
  const deleted = await deleteCheck({ client, path: { id }, throwOnError: true });

  const gone = await getCheck({ client, path: { id } });
  const unknown = await uploadCheck({ client, body: { file: input.pdf, sku: 'NO-SUCH-SKU' } });
  const stranger = createClient(createConfig({ baseUrl: input.baseUrl, auth: () => 'not-a-key-of-this-server' }));
  const refused = await getCheck({ client: stranger, path: { id: byUrl.data.id } });
  const noSuchLayer = await submitCheck({ client, body: { sku: input.layers.sku, layers: { front: { url: input.layers.front }, sleeve: { url: input.layers.back } } } });
  const asJson = await uploadCheck({ client, body: { file: input.pdf, sku: input.sku }, bodySerializer: () => JSON.stringify({ sku: input.sku }), headers: { 'Content-Type': 'application/json' } });

  const problem = (r: { error?: unknown; response: Response }) => ({ status: r.response.status, problem: r.error as Problem });
  return {
    profiles: profiles.data,
    uploaded: { status: up.response.status, check: up.data },
    submitted: { status: byUrl.response.status, check: byUrl.data },
    done: done.slice(0, 2),
    layered: done[2]!,
    unknownLayer: problem(noSuchLayer),
    html: html.data as string,
    preview: { type: previewBlob.type, bytes: previewBlob.size },
    deleted: deleted.response.status,
    afterDelete: problem(gone),
    unknownSku: problem(unknown),
    wrongKey: problem(refused),
    notPdfType: problem(asJson),
  };
}
