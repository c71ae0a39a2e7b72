import type { Check } from './context.js';
import { targetLabel } from './context.js';

/** page-count-mismatch: one page per layer, no more, no fewer. */
export const checkPageCount: Check = (ctx) => {
  const { facts, target } = ctx;
  if (facts.pageCount === null) return [];
  const want = target.layers.length;
  const have = facts.pageCount;
  if (have === want) return [];
  const order = target.layers.map((l) => l.id).join(', ');
  const fix =
    have < want
      ? `add the missing layer page${want - have > 1 ? 's' : ''} (${target.layers
          .slice(have)
          .map((l) => l.id)
          .join(', ')})`
      : `remove the extra page${have - want > 1 ? 's' : ''} ${have - want > 1 ? `${want + 1}–${have}` : String(want + 1)}`;
  return [
    {
      code: 'page-count-mismatch',
      page: null,
      layer: null,
      message: `The PDF has ${have} page${have === 1 ? '' : 's'}; ${targetLabel(ctx)} has ${want} layer${want === 1 ? '' : 's'}, one page each in this order: ${order}. ${fix[0]!.toUpperCase()}${fix.slice(1)}.`,
      expected: `${want} pages (${order})`,
      actual: `${have} pages`,
      details: { pages: have, layers: want },
    },
  ];
};
