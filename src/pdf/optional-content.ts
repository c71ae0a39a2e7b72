/**
 * Optional content (ISO 32000-2 §8.11): which optional content groups (OCGs) are hidden when the
 * document is printed, and whether an optional content membership dictionary (OCMD) makes its
 * content visible. Hidden content prints nothing, so no check may judge it.
 *
 * The state of each group comes from the default configuration (/OCProperties /D): /BaseState,
 * then /ON and /OFF; then the configuration's /AS entries for the Print event apply each group's
 * /Usage /Print /PrintState, as a reader does when it prints.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import { PDFArray, dictOf, get, getDict, getName, items, nameOf, resolve } from './objects.js';
import { DecodeBudget } from './decode-budget.js';

/** Deepest visibility expression (/VE) evaluated; deeper ones count as visible. */
const MAX_EXPRESSION_DEPTH = 32;

/**
 * Each OCG, OCMD and expression is evaluated once per file (a membership dictionary or expression
 * shared many times — an expression whose parts repeat, a dictionary named by every marked-content
 * sequence — costs once), and every step is charged to the file's budget.
 */
export class OptionalContent {
  private readonly hiddenGroups = new Set<PDFObject>();
  private readonly verdicts = new Map<PDFObject, boolean>();
  private readonly expressions = new Map<PDFObject, boolean | undefined>();
  private readonly costs = new Map<PDFObject, number>();

  private constructor(
    private readonly context: PDFContext,
    private readonly budget: DecodeBudget,
  ) {}

  /** No optional content: everything is visible. */
  static none(context: PDFContext): OptionalContent {
    return new OptionalContent(context, new DecodeBudget());
  }

  /**
   * Reads the document's optional content configuration from its catalog.
   * @example
   * const oc = OptionalContent.fromCatalog(doc.context, catalog);
   * oc.isHidden(xobjectDict.get(PDFName.of('OC')));
   */
  static fromCatalog(context: PDFContext, catalog: PDFDict, budget: DecodeBudget = new DecodeBudget()): OptionalContent {
    const oc = new OptionalContent(context, budget);
    const properties = getDict(context, catalog, 'OCProperties');
    const config = getDict(context, properties, 'D');
    if (!properties || !config) return oc;
    const groupsIn = (dict: PDFDict | undefined, key: string) => {
      const v = get(context, dict, key);
      budget.work(v instanceof PDFArray ? v.size() : 1);
      return v instanceof PDFArray ? items(context, v).filter((x): x is PDFObject => x !== undefined) : [];
    };
    if (getName(context, config, 'BaseState') === 'OFF') for (const g of groupsIn(properties, 'OCGs')) oc.hiddenGroups.add(g);
    for (const g of groupsIn(config, 'ON')) oc.hiddenGroups.delete(g);
    for (const g of groupsIn(config, 'OFF')) oc.hiddenGroups.add(g);
    // Usage application: groups whose print state is set by their /Usage /Print entry.
    // A usage application or group list listed again changes nothing: each is applied once, so a
    // list shared by very many applications costs once.
    const applied = new Set<PDFObject>();
    for (const app of groupsIn(config, 'AS').map(dictOf)) {
      if (!app || applied.has(app)) continue;
      applied.add(app);
      if (getName(context, app, 'Event') !== 'Print') continue;
      const category = get(context, app, 'Category');
      const categories = category instanceof PDFArray ? items(context, category).map(nameOf) : [nameOf(category)];
      if (!categories.includes('Print')) continue;
      const list = get(context, app, 'OCGs');
      if (list && applied.has(list)) continue;
      if (list) applied.add(list);
      for (const g of groupsIn(app, 'OCGs')) {
        const state = getName(context, getDict(context, getDict(context, dictOf(g), 'Usage'), 'Print'), 'PrintState');
        if (state === 'OFF') oc.hiddenGroups.add(g);
        else if (state === 'ON') oc.hiddenGroups.delete(g);
      }
    }
    return oc;
  }

  /** True when content marked with this OCG or OCMD (the value of an /OC entry) is hidden in print. */
  isHidden(value: PDFObject | undefined): boolean {
    const obj = resolve(this.context, value);
    const dict = dictOf(obj);
    if (!obj || !dict) return false;
    const known = this.verdicts.get(obj);
    if (known !== undefined) return known;
    this.budget.work();
    const type = getName(this.context, dict, 'Type');
    const hidden = type === 'OCG' ? this.hiddenGroups.has(obj) : type === 'OCMD' ? !this.membershipVisible(dict) : false;
    this.verdicts.set(obj, hidden);
    return hidden;
  }

  /**
   * What deciding visibility of this OCG or OCMD costs a renderer that does not remember: the
   * groups it lists, or its visibility expression expanded (a part named twice counts twice —
   * pdf.js evaluates it so, once for every marked-content sequence that names it).
   */
  rendererCost(value: PDFObject | undefined): number {
    const ctx = this.context;
    const obj = resolve(ctx, value);
    const dict = dictOf(obj);
    if (!obj || !dict || getName(ctx, dict, 'Type') !== 'OCMD') return 1;
    const known = this.costs.get(obj);
    if (known !== undefined) return known;
    const expression = get(ctx, dict, 'VE');
    const groups = get(ctx, dict, 'OCGs');
    const cost = 1 + (expression instanceof PDFArray ? this.expressionCost(expression, 0) : groups instanceof PDFArray ? groups.size() : 1);
    this.costs.set(obj, cost);
    return cost;
  }

  private expressionCost(expression: PDFObject | undefined, depth: number): number {
    const obj = resolve(this.context, expression);
    if (!(obj instanceof PDFArray) || depth > MAX_EXPRESSION_DEPTH * 4) return 1;
    const known = this.costs.get(obj);
    if (known !== undefined) return known;
    this.budget.work(obj.size());
    let cost = 1;
    for (let i = 1; i < obj.size() && cost < Number.MAX_SAFE_INTEGER; i++) cost += this.expressionCost(obj.get(i), depth + 1);
    this.costs.set(obj, cost);
    return cost;
  }

  private membershipVisible(ocmd: PDFDict): boolean {
    const ctx = this.context;
    const expression = get(ctx, ocmd, 'VE');
    if (expression instanceof PDFArray) {
      const value = this.evaluate(expression, 0);
      if (value !== undefined) return value;
    }
    const groupsObj = get(ctx, ocmd, 'OCGs');
    this.budget.work(groupsObj instanceof PDFArray ? groupsObj.size() : 1);
    const groups = (groupsObj instanceof PDFArray ? items(ctx, groupsObj) : [groupsObj]).filter((g): g is PDFObject => g !== undefined && getName(ctx, dictOf(g), 'Type') === 'OCG');
    // An OCMD without groups has no effect on visibility.
    if (groups.length === 0) return true;
    const on = groups.map((g) => !this.hiddenGroups.has(g));
    switch (getName(ctx, ocmd, 'P') ?? 'AnyOn') {
      case 'AllOn':
        return on.every(Boolean);
      case 'AnyOff':
        return on.some((v) => !v);
      case 'AllOff':
        return on.every((v) => !v);
      default:
        return on.some(Boolean);
    }
  }

  /** A visibility expression: [/And e…], [/Or e…], [/Not e], or an OCG. Undefined when malformed. */
  private evaluate(expression: PDFObject | undefined, depth: number): boolean | undefined {
    if (depth > MAX_EXPRESSION_DEPTH) return undefined;
    const ctx = this.context;
    const obj = resolve(ctx, expression);
    if (!(obj instanceof PDFArray)) {
      return obj && getName(ctx, dictOf(obj), 'Type') === 'OCG' ? !this.hiddenGroups.has(obj) : undefined;
    }
    // An expression shared by several parents is evaluated once: [/And E E] with E = [/And F F]… is linear, not exponential.
    if (this.expressions.has(obj)) return this.expressions.get(obj);
    this.budget.work(obj.size());
    const value = this.combine(obj, depth);
    this.expressions.set(obj, value);
    return value;
  }

  private combine(obj: PDFArray, depth: number): boolean | undefined {
    const ctx = this.context;
    const [op, ...operands] = items(ctx, obj);
    const values = operands.map((o) => this.evaluate(o, depth + 1)).filter((v): v is boolean => v !== undefined);
    switch (nameOf(op)) {
      case 'And':
        return values.length ? values.every(Boolean) : undefined;
      case 'Or':
        return values.length ? values.some(Boolean) : undefined;
      case 'Not':
        return values.length === 1 ? !values[0] : undefined;
      default:
        return undefined;
    }
  }
}
