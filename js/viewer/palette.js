// The viewer's colours, the one place they are written: the light and dark
// themes (the element's CSS variables, `--asv-NAME`, made from them by
// styles.js; the pages' stylesheet declares the same as `--NAME` in
// www/css/base.css, and a test checks it against these), the colours each
// status tone is shown in, and the charts' series colours. No DOM: workers
// and Node tests use it.

/** Each theme's colours by name. `sel` is the pages' selected row. */
export const THEMES = {
  light: {
    bg: "#ffffff",
    fg: "#1d2329",
    dim: "#5f6b76",
    card: "#f6f8fa",
    line: "#d8dee4",
    grid: "#e3e8ee",
    accent: "#0b63c5",
    good: "#1a7f37",
    warn: "#9a6700",
    bad: "#cf222e",
    pending: "#8250df",
    "good-bg": "#dafbe1",
    "warn-bg": "#fff8c5",
    "bad-bg": "#ffebe9",
    "pending-bg": "#fbefff",
    "idle-bg": "#eaeef2",
    sel: "#ddeeff",
  },
  dark: {
    bg: "#0d1117",
    fg: "#e6edf3",
    dim: "#9198a1",
    card: "#161b22",
    line: "#30363d",
    grid: "#262c34",
    accent: "#4493f8",
    good: "#3fb950",
    warn: "#d29922",
    bad: "#f85149",
    pending: "#ab7df8",
    "good-bg": "#12361f",
    "warn-bg": "#3b2e05",
    "bad-bg": "#4a1618",
    "pending-bg": "#2e1f4d",
    "idle-bg": "#21262d",
    sel: "#1f3a5f",
  },
};

/** Each status tone (status.js) as the theme colours it is drawn in:
 * `[text, background]`. */
export const TONE_COLORS = {
  done: ["good", "good-bg"],
  failed: ["bad", "bad-bg"],
  running: ["pending", "pending-bg"],
  suspended: ["warn", "warn-bg"],
  idle: ["dim", "idle-bg"],
};

/** A tone's colours as CSS values of the theme's variables, named
 * `--${prefix}NAME` (the element's prefix is `asv-`, the pages' none). */
export function toneColors(tone, prefix = "") {
  const [text, background] = TONE_COLORS[tone] ?? TONE_COLORS.idle;
  return { color: `var(--${prefix}${text})`, background: `var(--${prefix}${background})` };
}

/** A theme's colours as CSS variable declarations, `--${prefix}NAME: VALUE;`. */
export function themeVariables(theme, prefix) {
  return Object.entries(theme)
    .map(([name, value]) => `--${prefix}${name}: ${value};`)
    .join(" ");
}

/** The charts' series colours by hue (Tableau 10's first seven). */
export const HUES = {
  blue: "#4e79a7",
  orange: "#f28e2b",
  green: "#59a14f",
  red: "#e15759",
  purple: "#b07aa1",
  teal: "#76b7b2",
  yellow: "#edc948",
};

/** The colours a chart gives its series in turn; budget operations past
 * its length are not charted. */
export const SERIES_COLORS = Object.values(HUES);

/** A chart's reference line (a threshold): neither theme's text nor a hue. */
export const REFERENCE = "#999";
