/**
 * The viewer's full-text search of a log the worker holds whole (below the
 * paged size): whether an event's JSON text holds the query. A paged index
 * searches in WebAssembly (`SessionIndex.filter`, src/index/search.rs) by
 * the same rule, so a log finds the same events at every size: the query
 * as plain text, letters in either case as a case-insensitive `RegExp`
 * without the `u` flag compares them (`Ärger` finds `ärger`; `ß` is not
 * `SS`; beyond the BMP a letter matches only itself).
 * @param {string} query
 * @returns {((text: string) => boolean) | null} null for an empty query
 */
export function textMatcher(query) {
  if (!query) return null;
  const re = queryPattern(query);
  return (text) => re.test(text);
}

/**
 * The rule itself, as a pattern to find where a text holds `query`
 * (`text.search(pattern)`): the search across a directory's runs
 * (bin/search-dir.js) answers with the matching part.
 * @param {string} query
 * @returns {RegExp}
 */
export function queryPattern(query) {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
}
