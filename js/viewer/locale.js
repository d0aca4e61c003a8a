// The language the viewer formats in: the browser's own, where Intl
// accepts it. WebKit run under a C/POSIX locale (LANG=C.UTF-8) says
// navigator.language is "C", which is no language tag: every Intl
// constructor given it throws, and the page would stop. No DOM: the
// workers use it too.

/** What Intl's formats fall back to when the browser's language is not a tag. */
export const FALLBACK_LOCALE = "en-US";

/** `language` (the browser's, by default) as Intl accepts it, canonical
 * ("en-us" → "en-US"), or FALLBACK_LOCALE where Intl refuses it. */
export function browserLocale(language = globalThis.navigator?.language) {
  try {
    return Intl.getCanonicalLocales(language)[0] ?? FALLBACK_LOCALE;
  } catch {
    return FALLBACK_LOCALE;
  }
}
