/**
 * String order for the CCM's sorts: UTF-16 code-unit order, as Go's `sort.Strings` orders bytes for the
 * ASCII names involved. Not `localeCompare`: that goes through ICU collation, which pages ~2.5 MB of the
 * Node binary's ICU data into memory and costs far more CPU in the per-Service node-set sorts.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
