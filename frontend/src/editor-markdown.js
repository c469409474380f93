// Entry of dojo-editor-markdown.min.js: the same DojoEditor, with the Markdown language as well.
import "./markdown.js";

export { applyChanges, create, fromTextarea, version } from "./editor.js";
