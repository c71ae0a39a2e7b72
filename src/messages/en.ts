/**
 * Customer messages in English (ICU MessageFormat). Variables: `product` (the product's name),
 * `layer` (the layer's name, or "your design" for the whole file), `page`, and per code the numbers
 * named in its entry. No PDF words: the customer knows the product, its sides and their picture.
 */
import type { Catalogue } from './catalogue.js';

export const en: Catalogue = {
  words: { design: 'your design', page: 'page {page}' },
  codes: {
    'file-not-pdf': {
      title: 'This is not a print file we can read',
      problem: 'The file you uploaded is not a PDF document.',
      production: 'Your {product} cannot be printed from it.',
      advice: 'Export or save your design as a PDF and upload that file.',
    },
    'pdf-damaged': {
      title: 'The file is damaged',
      problem: 'Parts of the file could not be read; it may have been cut off while uploading or saving.',
      production: 'Your {product} cannot be printed from it.',
      advice: 'Save your design again from your design program and upload the new file.',
    },
    'pdf-encrypted': {
      title: 'The file is password-protected',
      problem: 'The file is locked with a password or restrictions.',
      production: 'Production may not be able to open it, and your {product} would not be printed.',
      advice: 'Save your design again without a password or restrictions and upload it.',
    },
    'pdf-too-complex': {
      title: 'The file is too complex',
      problem: 'The design for {layer} is too complex to be processed safely.',
      production: 'Your {product} cannot be printed from it.',
      advice: 'Flatten or simplify your design (fewer layers and effects) and save it again.',
    },
    'pdf-repaired': {
      title: 'The file had to be repaired',
      problem: 'The file was slightly damaged; we could still read it.',
      production: 'Your {product} will most likely print as shown, but some print systems refuse such files.',
      advice: 'To be safe, save your design again from your design program and upload the new file.',
    },
    'pdf-active-content': {
      title: 'The file contains scripts',
      problem: 'The file contains scripts or actions, which a print file does not need.',
      production: 'They are never run; your {product} prints from the picture alone, but some print systems refuse such files.',
      advice: 'Save your design again as a plain PDF for print (without interactive features).',
    },
    'pdf-timeout': {
      title: 'The file takes too long to process',
      problem: 'Processing {layer} took longer than allowed.',
      production: 'Your {product} cannot be printed from it in time.',
      advice: 'Simplify your design (flatten effects, fewer objects) and save it again.',
    },
    'file-too-large': {
      title: 'The file is too large',
      problem: 'The file is {size}; the limit is {maxSize}.',
      production: 'Files this large may be refused or delay production of your {product}.',
      advice: 'Use smaller pictures or save with stronger compression.',
      fixed: 'We compressed the pictures in your file so that it is {size} now.',
    },
    'page-count-mismatch': {
      title: 'Wrong number of pages',
      problem: 'Your {product} has {layers, plural, one {# printed side} other {# printed sides}}, and your file has {pages, plural, one {# page} other {# pages}}.',
      production: 'Each page is printed on one side in order; with a different number of pages your {product} cannot be printed as intended.',
      advice: 'Make one page per printed side, in the order of the product, and upload the file again.',
    },
    'page-order-mismatch': {
      title: 'The pages are in the wrong order',
      problem: 'The pages of your file fit the sides of your {product} only in another order.',
      production: 'Each page is printed on the side in the same position, so your designs would land on the wrong sides.',
      advice: 'Put the pages in the order of the product’s sides.',
      fixed: 'We put the pages in the order of the sides of your {product}. Please check that each design is on the right side.',
    },
    'page-size-mismatch': {
      title: 'The design for {layer} has the wrong size',
      problem: 'The design for {layer} has a different size and shape than that part of your {product}.',
      production: 'It would be stretched or cut to fit, so part of your design could be lost.',
      advice: 'Make the design for {layer} exactly the size given for your {product}, bleed included.',
      fixed: 'We fitted the design for {layer} to its size. Please check that nothing important was cut off.',
    },
    'page-scale-mismatch': {
      title: 'The design for {layer} will be scaled',
      problem: 'The design for {layer} has the right shape but another size.',
      production: 'It will be scaled to fit {layer}; fine detail may look softer or heavier.',
      advice: 'If you want it printed exactly as designed, make it the size given for your {product}.',
      fixed: 'We scaled the design for {layer} to its size, as production would have.',
    },
    'page-orientation-mismatch': {
      title: 'The design for {layer} is sideways',
      problem: 'The design for {layer} is turned sideways: its width and height are swapped.',
      production: 'It would print sideways or be cut to fit.',
      advice: 'Turn the design so that its top is at the top of {layer}.',
      fixed: 'We turned the design for {layer} upright. Please check that its top is at the top.',
    },
    'page-rotate-set': {
      title: 'The design for {layer} is turned',
      problem: 'The design for {layer} is set to be shown turned.',
      production: 'Some print systems ignore this setting and would print it in another direction than you see it.',
      advice: 'Save your design with the picture itself upright.',
      fixed: 'We made the design for {layer} upright as you see it, so it prints that way everywhere.',
    },
    'page-boxes-differ': {
      title: 'The design for {layer} has unusual margins',
      problem: 'The design for {layer} defines its edges in more than one way.',
      production: 'It is printed by its outer edge; make sure nothing important is outside the area you expect.',
      advice: 'Check the edges of the design for {layer}, or save it again with one page size.',
    },
    'image-too-large': {
      title: 'A picture on {layer} is very large',
      problem: 'A picture on {layer} has more pixels than production can take.',
      production: 'It may be refused or reduced in production.',
      advice: 'Reduce the picture’s pixel size; it still needs to be sharp at the printed size.',
      fixed: 'We reduced the pixel size of the picture on {layer}; it stays sharp at the printed size.',
    },
    'image-low-resolution': {
      title: 'A picture on {layer} will look blurry',
      problem: 'A picture on {layer} has too few pixels for its printed size ({ppi, number} ppi; at least {minPpi, number} ppi is needed).',
      production: 'It will print soft or pixelated.',
      advice: 'Use a larger version of the picture: at least {neededWidthPx, number} × {neededHeightPx, number} pixels for that size.',
    },
    'colour-space-not-rgb': {
      title: 'Colours on {layer} will be converted',
      problem: 'The colours of the design for {layer} are set up for another printing process.',
      production: 'Production converts them; colours may look different from what you see on screen.',
      advice: 'Save your design in RGB colours (sRGB) to see what will print.',
      fixed: 'We converted the colours of the design for {layer} to the colours production uses. Please check that they look right in the preview.',
    },
    'page-blank': {
      title: '{layer} is empty',
      problem: 'The design for {layer} is blank.',
      production: '{layer} will be printed without a design.',
      advice: 'If {layer} should have a design, add it to the page for {layer}.',
    },
    'page-edge-gap': {
      title: 'The design for {layer} does not reach the edges',
      problem: 'The design for {layer} leaves an empty strip at an edge.',
      production: 'The strip will be visible on the finished product, or the fabric will show there.',
      advice: 'Extend your background to the edges, bleed included.',
    },
    'font-not-embedded': {
      title: 'Text on {layer} may change',
      problem: 'A font used on {layer} is not included in the file.',
      production: 'Production would use a substitute font, so your text may look different.',
      advice: 'Save your design with fonts included, or turn the text into shapes.',
    },
    'font-unusable': {
      title: 'Text on {layer} cannot be drawn',
      problem: 'A font used on {layer} is damaged.',
      production: 'Text in that font may print wrong or be missing.',
      advice: 'Save your design again with fonts included, or turn the text into shapes.',
    },
    'page-render-failed': {
      title: 'The design for {layer} could not be drawn',
      problem: 'We could not draw the design for {layer} to check it.',
      production: 'Production may have the same problem, and {layer} may not print as intended.',
      advice: 'Save your design again from your design program and upload the new file.',
    },
    'source-unreachable': {
      title: 'We could not download your file',
      problem: 'The link to your file did not give us the file.',
      production: 'Your {product} cannot be printed without it.',
      advice: 'Check the link, or upload the file again.',
    },
    'source-requires-auth': {
      title: 'Your file’s link needs a login',
      problem: 'The link to your file asks for a login instead of giving the file.',
      production: 'Production cannot log in, so your {product} could not be printed.',
      advice: 'Share a link that downloads the file directly, or upload the file.',
    },
    'source-redirected': {
      title: 'Your file’s link forwards elsewhere',
      problem: 'The link to your file forwards to another address.',
      production: 'If the forwarding changes, production may not find your file.',
      advice: 'Use the final, direct link to your file.',
    },
    'source-url-expires': {
      title: 'Your file’s link expires',
      problem: 'The link to your file stops working after some time.',
      production: 'If it expires before production, your {product} cannot be printed.',
      advice: 'Use a link that stays valid until your order is delivered.',
    },
    'source-address-blocked': {
      title: 'Your file’s link is not allowed',
      problem: 'The link to your file points to a private address.',
      production: 'Production cannot download from there.',
      advice: 'Use a public link to your file, or upload the file.',
    },
  },
};
