import type { OrderDraft } from '../../src/order/schema.js';

/** A valid order draft from the spec's field list; tests break one rule at a time. */
export function validDraft(sources: string[] = ['https://files.example.com/a.pdf']): OrderDraft {
  return {
    number: 'SHOP-1001',
    comments: 'Gift wrap',
    purchased_at: '2026-11-20 14:05:09',
    client_ip: '203.0.113.7',
    client_user_agent: 'Mozilla/5.0',
    rows: [
      { sku: 'T-SHIRT-M', quantity: 2, client_barcode: 'LINE-0001', sources: sources.map((url) => ({ url })) },
      { sku: 'DUVET-COVER-200X200', quantity: 1, client_barcode: 'LINE-0002', cart_item_key: 'cart-8f3a' },
    ],
    customer: { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', phone: '+351 912 345 678' },
    shipping_address: {
      address: 'Rua Augusta 100',
      city: 'Lisboa',
      country_code: 'PT',
      country: 'Portugal',
      postal_code: '1100-053',
      first_name: 'Ana',
      last_name: 'Silva',
    },
  };
}
