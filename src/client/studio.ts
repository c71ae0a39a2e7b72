/**
 * The embeddable customisation studio: its iframe address, the preview image address, and a
 * browser-side listener for the studio's messages that trusts only the studio's exact origin.
 */

/**
 * `{studio_url}?application_key=…&sku=…&cart_item_key=…`
 * @example <iframe src={studioUrl({ studioUrl, applicationKey, sku: 'T-SHIRT-M', cartItemKey })} />
 */
export function studioUrl({ studioUrl, applicationKey, sku, cartItemKey }: { studioUrl: string; applicationKey: string; sku: string; cartItemKey: string }): string {
  const u = new URL(studioUrl);
  u.searchParams.set('application_key', applicationKey);
  u.searchParams.set('sku', sku);
  u.searchParams.set('cart_item_key', cartItemKey);
  return u.toString();
}

/**
 * `{api_url}/v2/studio/customizations/{cart_item_key}/preview?Application-Key=…`, usable as an <img> src.
 * @example
 * import { studioPreviewUrl } from 'print-preflight/order-service';
 * const src = studioPreviewUrl({ apiUrl: 'https://api.example.com', cartItemKey: 'cart-1', applicationKey: 'app' });
 */
export function studioPreviewUrl({ apiUrl, cartItemKey, applicationKey }: { apiUrl: string; cartItemKey: string; applicationKey: string }): string {
  const u = new URL(`${apiUrl.replace(/\/$/, '')}/v2/studio/customizations/${encodeURIComponent(cartItemKey)}/preview`);
  u.searchParams.set('Application-Key', applicationKey);
  return u.toString();
}

export interface MessageTarget {
  addEventListener(type: 'message', listener: (event: { origin: string; data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (event: { origin: string; data: unknown }) => void): void;
}

/**
 * Listens for `customizationFinished` and `closeButtonClicked` from the studio, ignoring every
 * message from any other origin (the studio posts with target origin "*", so anyone can post too).
 * @returns a function that stops listening
 * @example
 * const stop = listenToStudio({ studioUrl, onFinished: () => addToCart(key), onClose: () => closeModal() });
 */
export function listenToStudio({
  studioUrl,
  onFinished,
  onClose,
  target = globalThis as unknown as MessageTarget,
}: {
  studioUrl: string;
  onFinished?: () => void;
  onClose?: () => void;
  target?: MessageTarget;
}): () => void {
  const origin = new URL(studioUrl).origin;
  const listener = (event: { origin: string; data: unknown }) => {
    if (event.origin !== origin) return;
    if (event.data === 'customizationFinished') onFinished?.();
    else if (event.data === 'closeButtonClicked') onClose?.();
  };
  target.addEventListener('message', listener);
  return () => target.removeEventListener('message', listener);
}
