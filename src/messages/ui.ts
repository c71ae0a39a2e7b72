/**
 * The words of the pages a customer reads (the report, the approval page) and of the CLI's
 * customer text: one ICU MessageFormat string per key, in every locale. Values named in braces are
 * filled in by the page; `{layer_…}` and `{product_…}` are the grammatical forms of the part and
 * product names (see {@link Grammar}).
 * @example
 * import { UI_KEYS, uiFormatter } from 'print-preflight/customer';
 * const t = await uiFormatter('fr');
 * for (const key of UI_KEYS) console.log(key, t(key));
 */
export const UI_KEYS = [
  // The verdict and what it means.
  'verdictPass',
  'verdictWarn',
  'verdictFail',
  'verdictLinePass',
  'verdictLineWarn',
  'verdictLineFail',
  'counts',
  'productLine',
  'checkedOn',
  // A fix and where its approval stands.
  'statePendingTitle',
  'statePendingLine',
  'stateApprovedTitle',
  'stateApprovedLine',
  'stateRejectedTitle',
  'stateRejectedLine',
  'stateAutoTitle',
  'stateAutoLine',
  'stateStillFailsLine',
  'originalTitle',
  'originalLine',
  'changes',
  'stillToNote',
  // Findings.
  'severityError',
  'severityWarning',
  'severityInfo',
  'whatToDo',
  'fileFindings',
  'pageOfFile',
  'pageWithoutPart',
  'partOk',
  'partNotOk',
  'partNotes',
  'onProduct',
  'printFile',
  'mockupAlt',
  'previewAlt',
  'noPreview',
  'legendBleed',
  'legendTrim',
  'legendSafe',
  // The technical section.
  'technical',
  'techPageSize',
  'techExpectedSize',
  'techPictures',
  'techPicture',
  'techColours',
  'techTurned',
  'techChecksum',
  'prepressLink',
  // A language we do not have.
  'fallback',
  // The approval page.
  'approvalTitle',
  'approvalIntro',
  'before',
  'after',
  'beforeCaption',
  'afterCaption',
  'moved',
  // How an assembled part's image fills it (`fill`: cover, contain, stretch, tile, mirror, bleed).
  'fill',
  'whereChanged',
  'cropBeforeAlt',
  'cropAfterAlt',
  'approve',
  'reject',
  'reason',
  'decidedApproved',
  'decidedRejected',
  'decidedAuto',
  'decidedNext',
  // A colour fix's measured difference.
  'measuredColour',
] as const;

export type UiKey = (typeof UI_KEYS)[number];
export type UiMessages = Record<UiKey, string>;
