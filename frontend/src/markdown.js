// Markdown for the authoring pages (briefs). Not markdown() of @codemirror/lang-markdown: that always
// bundles HTML, CSS and JavaScript support (~200 KB) for inline HTML. Fenced code shows as code,
// without highlighting. The keymap continues lists and quotes on Enter.
import { markdownKeymap, markdownLanguage } from "@codemirror/lang-markdown";
import { LanguageSupport } from "@codemirror/language";
import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";

import { registerLanguage } from "./languages.js";

registerLanguage("markdown", () => new LanguageSupport(markdownLanguage, [Prec.high(keymap.of(markdownKeymap))]));
