// Light and dark editor themes. Every text colour keeps a contrast of at least 4.5:1 against the
// editor background and the active-line background (WCAG AA), so axe's colour-contrast rule passes
// in both themes; the palette is GitHub's (Primer) with a few shades darkened for that reason.
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

const PALETTES = {
  light: {
    background: "#ffffff", text: "#1f2328", gutterBackground: "#f6f8fa", gutterText: "#57606a",
    activeLine: "#f3f6fa", activeGutter: "#e6ebf1", selection: "#dbe7fb", cursor: "#1f2328",
    matchingBracket: "#c8e1ff", border: "#d0d7de", focusRing: "#0969da",
    keyword: "#b3122a", string: "#0a3069", comment: "#57606a", number: "#0550ae",
    function: "#6f42c1", className: "#953800", invalid: "#82071e",
  },
  dark: {
    background: "#0d1117", text: "#e6edf3", gutterBackground: "#0d1117", gutterText: "#9198a1",
    activeLine: "#161b22", activeGutter: "#161b22", selection: "#1f3a5f", cursor: "#e6edf3",
    matchingBracket: "#2f4f6f", border: "#3d444d", focusRing: "#58a6ff",
    keyword: "#ff7b72", string: "#a5d6ff", comment: "#9198a1", number: "#79c0ff",
    function: "#d2a8ff", className: "#ffa657", invalid: "#ffa198",
  },
};

function editorTheme(p, dark) {
  return EditorView.theme({
    // The editor fills its container's height when the page gives it one, and grows with its text otherwise.
    "&": { color: p.text, backgroundColor: p.background, border: `1px solid ${p.border}`, height: "100%" },
    "&.cm-focused": { outline: `2px solid ${p.focusRing}`, outlineOffset: "1px" },
    ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", lineHeight: "1.5" },
    ".cm-content": { caretColor: p.cursor, minHeight: "10rem" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: p.cursor },
    "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground":
      { backgroundColor: p.selection },
    ".cm-content ::selection": { backgroundColor: p.selection },
    ".cm-activeLine": { backgroundColor: p.activeLine },
    ".cm-gutters": { backgroundColor: p.gutterBackground, color: p.gutterText, borderRight: `1px solid ${p.border}` },
    ".cm-activeLineGutter": { backgroundColor: p.activeGutter, color: p.text },
    "&.cm-focused .cm-matchingBracket": { backgroundColor: p.matchingBracket, outline: `1px solid ${p.gutterText}` },
    ".cm-panels": { backgroundColor: p.gutterBackground, color: p.text },
    ".cm-panels.cm-panels-top": { borderBottom: `1px solid ${p.border}` },
    ".cm-textfield": { color: p.text, backgroundColor: p.background, border: `1px solid ${p.gutterText}` },
    ".cm-button": { color: p.text, backgroundImage: "none", backgroundColor: p.activeGutter,
      border: `1px solid ${p.gutterText}` },
    ".cm-textfield::placeholder": { color: p.gutterText, opacity: "1" },
    ".cm-panel.cm-search label, .cm-panel.cm-search [name=close]": { color: p.text },
    ".cm-panel input:focus-visible, .cm-panel button:focus-visible": { outline: `2px solid ${p.focusRing}` },
    ".cm-searchMatch": { backgroundColor: "transparent", outline: `1px solid ${p.focusRing}` },
    ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: p.matchingBracket },
    ".cm-selectionMatch": { backgroundColor: p.activeGutter },
  }, { dark });
}

function highlighting(p) {
  return HighlightStyle.define([
    { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword, t.modifier],
      color: p.keyword },
    { tag: [t.string, t.special(t.string), t.regexp, t.escape], color: p.string },
    { tag: [t.comment, t.lineComment, t.blockComment, t.quote], color: p.comment, fontStyle: "italic" },
    { tag: [t.number, t.bool, t.null, t.atom, t.self, t.constant(t.variableName)], color: p.number },
    { tag: [t.function(t.variableName), t.function(t.propertyName), t.function(t.definition(t.variableName)),
      t.meta], color: p.function },
    { tag: [t.definition(t.className), t.className, t.typeName], color: p.className },
    { tag: t.invalid, color: p.invalid },
    // Markdown (briefs): structure by weight and style, not by colour alone.
    { tag: t.heading, color: p.number, fontWeight: "bold" },
    { tag: t.strong, fontWeight: "bold" },
    { tag: t.emphasis, fontStyle: "italic" },
    { tag: t.strikethrough, textDecoration: "line-through" },
    { tag: [t.link, t.url], color: p.string, textDecoration: "underline" },
    { tag: t.monospace, color: p.string },
    { tag: [t.processingInstruction, t.contentSeparator], color: p.comment },
  ]);
}

const THEMES = {
  light: [editorTheme(PALETTES.light, false), syntaxHighlighting(highlighting(PALETTES.light))],
  dark: [editorTheme(PALETTES.dark, true), syntaxHighlighting(highlighting(PALETTES.dark))],
};

/** The extensions of a theme by name ("light" or "dark"); throws on any other name. */
export function themeExtension(name) {
  if (!Object.hasOwn(THEMES, name)) {
    throw new RangeError(`DojoEditor: unknown theme ${JSON.stringify(name)} (use "light" or "dark")`);
  }
  return THEMES[name];
}
