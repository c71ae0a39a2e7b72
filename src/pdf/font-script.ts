/**
 * Whether a font that is not embedded sets Chinese, Japanese or Korean text: a composite (Type 0)
 * font whose encoding is one of the predefined CJK CMaps, whose CIDFont's /CIDSystemInfo names a
 * CJK character collection, or whose name is one of the common CJK faces. No previewer here has a
 * substitute with those characters (pdf.js in Node draws nothing, PDFium empty boxes; MuPDF has
 * its own CJK faces): the preview must say the text is not drawn rather than drawn with a
 * substitute.
 */
import type { PDFContext, PDFDict } from 'pdf-lib';
import { PDFArray, dictOf, get, getDict, getName, items } from './objects.js';

/** Adobe's CJK character collections (/CIDSystemInfo /Ordering). */
const CJK_ORDERINGS = new Set(['GB1', 'CNS1', 'Japan1', 'Japan2', 'Korea1', 'KR']);
/** Predefined CMaps of the CJK collections, by their names' shapes (UniGB-UCS2-H, 90ms-RKSJ-H, KSC-EUC-H…). */
const CJK_CMAP =
  /^(Uni(GB|CNS|JIS|KS)|GB|GBK|GBT|GBpc|GBK2K|B5|ETen|HKscs|HKdla|HKgccs|HKm|CNS|ETHK|90ms|90msp|90pv|83pv|78|Add|Ext|H$|V$|EUC|RKSJ|KSC|KSCms|KSCpc|Hankaku|Hiragana|Katakana|Roman|WP-Symbol|NWP)/;
/** Faces that set CJK text (Windows, Adobe, Apple and Noto names), by the start of /BaseFont without a subset tag. */
const CJK_FACES =
  /^(SimSun|SimHei|NSimSun|KaiTi|FangSong|STSong|STHeiti|STKaiti|STFangsong|MSung|MHei|MingLiU|PMingLiU|DFKai|Microsoft(YaHei|JhengHei)|MS-?(Mincho|Gothic|PMincho|PGothic|UIGothic)|Ryumin|GothicBBB|Heisei|KozMin|KozGo|HiraMin|HiraKaku|Hiragino|Meiryo|Yu(Gothic|Mincho)|Batang|Dotum|Gulim|Gungsuh|Malgun|HYSMyeongJo|HYGoThic|HYGothic|SMinchoL|NotoSans(CJK|SC|TC|JP|KR)|NotoSerif(CJK|SC|TC|JP|KR)|SourceHan|AdobeSong|AdobeHeiti|AdobeMing|AdobeMyungjo|AdobeGothic|WenQuanYi|LiSu|YouYuan)/i;

export function isCjkFont(context: PDFContext, font: PDFDict): boolean {
  if (getName(context, font, 'Subtype') !== 'Type0') return false;
  const encoding = getName(context, font, 'Encoding');
  if (encoding && encoding !== 'Identity-H' && encoding !== 'Identity-V' && CJK_CMAP.test(encoding)) return true;
  const descendants = get(context, font, 'DescendantFonts');
  const cid = descendants instanceof PDFArray ? dictOf(items(context, descendants)[0]) : undefined;
  const ordering = getDict(context, cid, 'CIDSystemInfo');
  const order = ordering ? get(context, ordering, 'Ordering') : undefined;
  const orderText = order ? String((order as { decodeText?: () => string }).decodeText?.() ?? order.toString()).replace(/[()]/g, '') : '';
  if (CJK_ORDERINGS.has(orderText)) return true;
  const name = (getName(context, font, 'BaseFont') ?? getName(context, cid, 'BaseFont') ?? '').replace(/^[A-Z]{6}\+/, '');
  return CJK_FACES.test(name) || /[^\x20-\x7e]/.test(name);
}
