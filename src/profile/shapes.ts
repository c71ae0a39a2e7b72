/**
 * The shapes a layer's panel has on the finished product, for mockups: the cut of a garment piece
 * (body front and back, sleeves, hood sides, pocket, trouser and shorts legs) or a flat panel
 * (a duvet face, a curtain). The geometry is in report/mockup.ts; a profile names its layers'
 * shapes (`layers[].shape`), and a layer that names none is drawn as a plain panel.
 * @example
 * import { PANEL_SHAPES } from 'print-preflight/customer';
 * console.log(PANEL_SHAPES.join(', ')); // what a profile's layers[].shape may say
 */
export const PANEL_SHAPES = [
  'body-front',
  'body-back',
  'tank-front',
  'tank-back',
  'sleeve-short',
  'sleeve-long',
  'hood-left',
  'hood-right',
  'pocket',
  'leg-front-left',
  'leg-front-right',
  'leg-back-left',
  'leg-back-right',
  'shorts-front-left',
  'shorts-front-right',
  'shorts-back-left',
  'shorts-back-right',
  'panel',
  'curtain-left',
  'curtain-right',
] as const;
export type PanelShape = (typeof PANEL_SHAPES)[number];
