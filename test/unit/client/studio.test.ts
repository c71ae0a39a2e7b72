import { describe, expect, it } from 'vitest';
import { listenToStudio, studioPreviewUrl, studioUrl } from '../../../src/client/studio.js';

describe('studio helpers', () => {
  it('builds the iframe and preview addresses', () => {
    expect(studioUrl({ studioUrl: 'https://studio.example.com/embed', applicationKey: 'app key', sku: 'T-SHIRT-M', cartItemKey: 'cart/1' })).toBe(
      'https://studio.example.com/embed?application_key=app+key&sku=T-SHIRT-M&cart_item_key=cart%2F1',
    );
    expect(studioPreviewUrl({ apiUrl: 'https://api.example.com/', cartItemKey: 'cart/1', applicationKey: 'k' })).toBe(
      'https://api.example.com/v2/studio/customizations/cart%2F1/preview?Application-Key=k',
    );
  });

  it('acts only on messages from the studio’s exact origin', () => {
    const listeners = new Set<(e: { origin: string; data: unknown }) => void>();
    const target = {
      addEventListener: (_: 'message', l: (e: { origin: string; data: unknown }) => void) => listeners.add(l),
      removeEventListener: (_: 'message', l: (e: { origin: string; data: unknown }) => void) => listeners.delete(l),
    };
    const post = (origin: string, data: unknown) => listeners.forEach((l) => l({ origin, data }));
    const seen: string[] = [];
    const stop = listenToStudio({ studioUrl: 'https://studio.example.com/embed?x=1', onFinished: () => seen.push('finished'), onClose: () => seen.push('close'), target });
    post('https://evil.example.com', 'customizationFinished');
    post('https://studio.example.com.evil.io', 'customizationFinished');
    post('http://studio.example.com', 'customizationFinished');
    post('https://studio.example.com', 'somethingElse');
    post('https://studio.example.com', 'customizationFinished');
    post('https://studio.example.com', 'closeButtonClicked');
    stop();
    post('https://studio.example.com', 'customizationFinished');
    expect(seen).toEqual(['finished', 'close']);
  });
});
