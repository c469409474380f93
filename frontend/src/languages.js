// The languages the editor knows. The workspace bundle has Python (challenge files) and plain text;
// the authoring bundle adds Markdown (markdown.js). Only the languages themselves are bundled, not
// their completion sources: the bundle stays lean.
import { pythonLanguage } from "@codemirror/lang-python";
import { LanguageSupport } from "@codemirror/language";

const LANGUAGES = new Map([
  ["python", () => new LanguageSupport(pythonLanguage)],
  ["text", () => []],
]);

/** Make a language available by name (a function returning its extension). */
export function registerLanguage(name, extension) {
  LANGUAGES.set(name, extension);
}

/** "python" for *.py, "markdown" for *.md, "text" otherwise. */
export function languageForFile(fileName) {
  const name = (fileName || "").toLowerCase();
  if (name.endsWith(".py")) return "python";
  if (name.endsWith(".md") || name.endsWith(".markdown")) return "markdown";
  return "text";
}

/** The extension for a language name; throws on a name this bundle does not know. */
export function languageExtension(name) {
  const extension = LANGUAGES.get(name);
  if (!extension) {
    const hint = name === "markdown" ? " (Markdown is in dojo-editor-markdown.min.js)" : "";
    throw new RangeError(`DojoEditor: unknown language ${JSON.stringify(name)}${hint}; known: ${[...LANGUAGES.keys()]}`);
  }
  return extension();
}
