import { describe, expect, it } from 'vitest';
import { OrderSchema, isRealDateTime } from '../../../src/order/schema.js';
import { formatPath } from '../../../src/profile/load.js';
import { validDraft } from '../../helpers/order.js';

/** Drafts are broken on purpose here, so their type is loose. */
type Draft = any;
const paths = (draft: unknown) => {
  const r = OrderSchema.safeParse(draft);
  return r.success ? [] : r.error.issues.map((i) => formatPath(i.path));
};
const broken = (mutate: (d: Draft) => void) => {
  const d = structuredClone(validDraft()) as Draft;
  mutate(d);
  return paths(d);
};

describe('order creation body schema', () => {
  it('accepts a valid draft and fills sources[].type with "file"', () => {
    const r = OrderSchema.parse(validDraft());
    expect(r.rows[0]!.sources![0]).toEqual({ type: 'file', url: 'https://files.example.com/a.pdf' });
  });

  it('accepts the optional fields left out, and variant_id instead of sku', () => {
    const d = validDraft() as Draft;
    for (const k of ['number', 'comments', 'client_ip', 'client_user_agent']) delete d[k];
    d.rows[0] = { variant_id: 4711, quantity: 1, sources: [{ url: 'http://x.example/a.pdf', type: 'file' }] };
    expect(paths(d)).toEqual([]);
  });

  it.each<[string, (d: Draft) => void, string[]]>([
    ['purchased_at missing', (d) => delete d.purchased_at, ['purchased_at']],
    ['purchased_at in ISO form', (d) => (d.purchased_at = '2026-11-20T14:05:09Z'), ['purchased_at']],
    ['purchased_at on 30 February', (d) => (d.purchased_at = '2026-02-30 10:00:00'), ['purchased_at']],
    ['purchased_at at 24:00', (d) => (d.purchased_at = '2026-02-03 24:00:00'), ['purchased_at']],
    ['client_ip not an IP', (d) => (d.client_ip = '300.1.1.1'), ['client_ip']],
    ['rows empty', (d) => (d.rows = []), ['rows']],
    ['rows missing', (d) => delete d.rows, ['rows']],
    ['a row without sku or variant_id', (d) => delete d.rows[0].sku, ['rows[0].sku']],
    ['quantity zero', (d) => (d.rows[0].quantity = 0), ['rows[0].quantity']],
    ['quantity fractional', (d) => (d.rows[0].quantity = 1.5), ['rows[0].quantity']],
    ['quantity as text', (d) => (d.rows[0].quantity = '2'), ['rows[0].quantity']],
    ['client_barcode not Code 128', (d) => (d.rows[0].client_barcode = 'LINE-Ü1'), ['rows[0].client_barcode']],
    ['client_barcode empty', (d) => (d.rows[0].client_barcode = ''), ['rows[0].client_barcode']],
    ['client_barcode repeated', (d) => (d.rows[1].client_barcode = 'LINE-0001'), ['rows[1].client_barcode']],
    ['neither sources nor cart_item_key', (d) => delete d.rows[1].cart_item_key, ['rows[1].sources', 'rows[1].cart_item_key']],
    ['sources empty', (d) => (d.rows[0].sources = []), ['rows[0].sources']],
    ['source type not file', (d) => (d.rows[0].sources[0].type = 'url'), ['rows[0].sources[0].type']],
    ['source url not a URL', (d) => (d.rows[0].sources[0].url = 'a.pdf'), ['rows[0].sources[0].url']],
    ['source url not http(s)', (d) => (d.rows[0].sources[0].url = 'ftp://x.example/a.pdf'), ['rows[0].sources[0].url']],
    ['customer email invalid', (d) => (d.customer.email = 'ana@'), ['customer.email']],
    ['customer without phone', (d) => delete d.customer.phone, ['customer.phone']],
    ['shipping address without city', (d) => delete d.shipping_address.city, ['shipping_address.city']],
    ['country_code alpha-3', (d) => (d.shipping_address.country_code = 'PRT'), ['shipping_address.country_code']],
    ['country_code lower case', (d) => (d.shipping_address.country_code = 'pt'), ['shipping_address.country_code']],
    ['country_code not a country', (d) => (d.shipping_address.country_code = 'XX'), ['shipping_address.country_code']],
    ['shipping_label with a bad URL', (d) => (d.shipping_label = { tracking_url: 'nope' }), ['shipping_label.tracking_url']],
    ['shipping_label with a bad date', (d) => (d.shipping_label = { date_created: '2026-13-01 00:00:00' }), ['shipping_label.date_created']],
    ['shipping_label empty', (d) => (d.shipping_label = {}), ['shipping_label']],
    ['an unknown field', (d) => (d.artwork_base64 = 'AAAA'), ['']],
  ])('refuses %s', (_name, mutate, expected) => {
    expect(broken(mutate)).toEqual(expected);
  });

  it('names every failing field at once', () => {
    const p = broken((d) => {
      d.customer.email = 'x';
      d.rows[0].sources[0].url = 'bad';
      d.shipping_address.country_code = 'DEU';
    });
    expect(p.sort()).toEqual(['customer.email', 'rows[0].sources[0].url', 'shipping_address.country_code']);
  });

  it.each([
    ['2024-02-29 00:00:00', true],
    ['2025-02-29 00:00:00', false],
    ['2026-12-31 23:59:59', true],
    ['2026-04-31 12:00:00', false],
    ['2026-1-01 12:00:00', false],
  ])('real date %s: %s', (s, ok) => {
    expect(isRealDateTime(s)).toBe(ok);
  });
});
