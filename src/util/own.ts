/**
 * Lookups in constant tables by a name that comes from a file. A plain object answers names it
 * does not hold from Object.prototype — `__proto__`, `constructor`, `toString`, `hasOwnProperty`…
 * — so a colour space named /__proto__ would be "described" by Object.prototype itself. Every
 * table keyed by a name from a file is read through {@link own}.
 */

/**
 * The table's own entry for `key`, or undefined: never an inherited property.
 * @example
 * own({ DeviceRGB: 3 }, 'DeviceRGB'); // 3
 * own({ DeviceRGB: 3 }, '__proto__'); // undefined
 */
export function own<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
