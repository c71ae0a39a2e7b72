/**
 * What a page's content scan may spend (limits) and what it returns (the result), and the signal
 * that stops it when a limit is reached.
 */
import type { ColourUse, FontUse, ImageFacts, PageMarks, Transparency } from '../facts.js';

export interface ScanLimits {
  /** Deepest Form XObject / pattern nesting followed. */
  maxFormDepth: number;
  /** Deepest q nesting kept. */
  maxStateDepth: number;
  /** Most operators interpreted per page, forms included. */
  maxOperators: number;
  /**
   * Most bytes decoded per page: all its content streams, Form XObjects and patterns together
   * (a stream listed twice counts twice). A page over it is too complex and never rendered.
   */
  maxDecodedBytes: number;
  /** Most image draws per page (inline images included). */
  maxImageDraws: number;
  /**
   * Pixels of the images a renderer decodes that the page's image list does not show: images
   * drawn by Type 3 glyphs and in soft-mask groups (the listed ones are budgeted by the caller).
   */
  maxHiddenImagePixels: number;
  /** Mesh-shading elements a renderer works through for the page (vertices of triangle meshes; the pieces patches are cut into, mesh-cost.ts). */
  maxMeshElements: number;
  /**
   * Steps a renderer takes deciding what optional content is visible on the page: every marked
   * sequence and XObject with /OC costs the groups it lists or its expression expanded.
   */
  maxOptionalContentSteps: number;
  /**
   * A renderer's estimated time to draw the page, in ms (render-cost.ts): its operators, path
   * points and glyphs, and the pixels its fills, strokes, glyphs, images and shadings cover. A page
   * over it is too complex: its inspection stops and it is not rendered.
   */
  maxRenderMs: number;
  /**
   * The same for the file's first `renderedPages` pages together (renderers draw one after
   * another): pages past it are too complex and not rendered, so a file of many heavy pages stays
   * within the file's time.
   */
  maxFileRenderMs: number;
  /** The pages the file's render budget counts: those a check renders (`maxRasterPages`, 64 by default). */
  renderedPages: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  maxFormDepth: 32,
  maxStateDepth: 512,
  maxOperators: 5_000_000,
  maxDecodedBytes: 128 * 1024 * 1024,
  maxImageDraws: 10_000,
  maxHiddenImagePixels: 48_000_000,
  maxMeshElements: 500_000,
  maxOptionalContentSteps: 5_000_000,
  maxRenderMs: 10_000,
  maxFileRenderMs: 12_000,
  renderedPages: 64,
};

export interface ScanResult {
  images: ImageFacts[];
  colours: ColourUse[];
  fonts: FontUse[];
  notes: string[];
  /** Structural errors found while scanning (a Form XObject that draws itself…). */
  damage: string[];
  /** True when a limit stopped the scan (the page is too complex to inspect fully). */
  tooComplex: boolean;
  /** Tiling patterns painted: their cells over the page, and the smallest cell step on the page (pt). */
  tiling: { cells: number; smallestStepPt: number } | null;
  /**
   * Where text, lines, shapes and images are painted (bounded), and how much of the visible page
   * the content inks (marks.ts).
   */
  marks: PageMarks;
  /** Blend modes and knockout groups the page uses: renderers differ in how they draw them. */
  transparency: Transparency;
  /**
   * What readers draw differently, counted: colours set outside their Indexed palette (PDFium paints
   * nothing; Ghostscript, MuPDF and pdf.js clamp to the palette), and inline images whose filtered
   * data does not decode to the image (PDFium loses the rest of the content stream after one).
   */
  hazards: { indexedOutOfRange: number; damagedInlineImages: number };
  /** What drawing the page costs a renderer (render-cost.ts). */
  renderWork: { operations: number; estimatedMs: number; groups: number };
}

/** Thrown inside the scan when a limit stops it: the page is marked too complex, the scan ends. */
export class LimitReached extends Error {}
