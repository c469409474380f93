/*
 * DojoEditor: the workspace's code editor (CodeMirror 6), built by scripts/build_frontend.sh into
 * static/vendor/codemirror/dojo-editor.min.js, an IIFE that defines the global `DojoEditor`
 * (Python and plain text). dojo-editor-markdown.min.js defines the same global with Markdown as well,
 * for the authoring pages; load one of the two on a page.
 *
 *   DojoEditor.create(options) -> editor
 *   DojoEditor.fromTextarea(textarea, options) -> editor
 *       Hides the <textarea>, puts the editor right after it and copies the text into it on every
 *       change, so the surrounding form posts the edited text. Without JavaScript the textarea is
 *       the editor. Defaults taken from the textarea: doc = its value, readOnly = its readonly
 *       attribute, label = its aria-label (which moves to the editor while it exists); clicking one
 *       of its <label>s focuses the editor.
 *   DojoEditor.version -> "<bundle version>"
 *
 *   options (all optional except parent for create):
 *     parent      Element the editor is appended to (create only)
 *     doc         initial text ("")
 *     fileName    e.g. "model.py"; picks the language and the default label
 *     language    "python" | "markdown" | "text" (default from fileName: .py, .md, else text);
 *                 an unknown one (or markdown in the workspace bundle) throws a RangeError
 *     label       accessible name of the editable area (default "Editor: " + fileName)
 *     readOnly    false; text can still be selected, searched and copied
 *     theme       "light" | "dark" ("light")
 *     closeBrackets  true: typing ( [ { ' " also types the closing one
 *     onChange(text)  after every change of the text, by the user or by setValue
 *     onRun()         Ctrl/Cmd+Enter
 *     onSubmit()      Ctrl/Cmd+Shift+Enter
 *     onSave()        Ctrl/Cmd+S (the browser's save dialog is suppressed)
 *     onPaste(text)   after text was pasted or dropped in, with that text
 *   A key is bound only when its hook is given.
 *
 *   editor: getValue() -> text; setValue(text) (undoable, calls onChange); focus();
 *           setTheme("light"|"dark"); setReadOnly(bool); goToLine(line) (1-based: select the line,
 *           scroll to it, focus); destroy() (fromTextarea: shows the textarea again); view (EditorView)
 *
 * Keyboard: Tab and Shift+Tab indent by 4 spaces; Escape then Tab (or Shift+Tab) leaves the editor,
 * so keyboard users are never trapped. Ctrl/Cmd+F opens the search panel, Ctrl/Cmd+Z undoes (each
 * editor has its own history: make one editor per file).
 */
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit } from "@codemirror/language";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorSelection, EditorState, Prec } from "@codemirror/state";
import {
  drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, keymap,
  lineNumbers,
} from "@codemirror/view";

import { languageExtension, languageForFile } from "./languages.js";
import { themeExtension } from "./themes.js";

// The version of frontend/package.json, set by the build.
export const version = DOJO_EDITOR_VERSION;

/** The hooks' key bindings, above CodeMirror's own (Mod-Enter would otherwise insert a blank line). */
function hookKeymap(options) {
  const bindings = [];
  const bind = (key, hook) => {
    if (typeof hook === "function") bindings.push({ key, preventDefault: true, run: () => (hook(), true) });
  };
  bind("Mod-Enter", options.onRun);
  bind("Mod-Shift-Enter", options.onSubmit);
  bind("Mod-s", options.onSave);
  return Prec.highest(keymap.of(bindings));
}

function readOnlyExtension(readOnly) {
  return readOnly ? [EditorState.readOnly.of(true), EditorView.contentAttributes.of({ "aria-readonly": "true" })] : [];
}

/**
 * Typing over a selection that spans lines would let Chrome merge the line elements itself, and it
 * keeps their look with style attributes, which the CSP (`style-src 'self'`) blocks: console errors,
 * though CodeMirror then repairs the text. Such insertions go through CodeMirror instead.
 */
function multiLineTyping() {
  return EditorView.domEventHandlers({
    beforeinput(event, view) {
      if (event.inputType !== "insertText" || typeof event.data !== "string") return false;
      const selection = view.root.getSelection();
      const { anchorNode, focusNode } = selection || {};
      if (!anchorNode || !focusNode || !view.contentDOM.contains(anchorNode) || !view.contentDOM.contains(focusNode)) {
        return false;
      }
      const anchor = view.posAtDOM(anchorNode, selection.anchorOffset);
      const head = view.posAtDOM(focusNode, selection.focusOffset);
      const from = Math.min(anchor, head);
      const to = Math.max(anchor, head);
      if (view.state.doc.lineAt(from).number === view.state.doc.lineAt(to).number) return false;
      event.preventDefault();
      view.dispatch({
        changes: { from, to, insert: event.data },
        selection: { anchor: from + event.data.length },
        scrollIntoView: true,
        userEvent: "input.type",
      });
      return true;
    },
  });
}

/** Tell the hooks about changes and pastes once per update. */
function changeListener(options) {
  return EditorView.updateListener.of((update) => {
    if (!update.docChanged) return;
    if (typeof options.onPaste === "function") {
      for (const tr of update.transactions) {
        if (!tr.isUserEvent("input.paste") && !tr.isUserEvent("input.drop")) continue;
        let pasted = "";
        tr.changes.iterChanges((_fromA, _toA, _fromB, _toB, inserted) => { pasted += inserted.toString(); });
        options.onPaste(pasted);
      }
    }
    if (typeof options.onChange === "function") options.onChange(update.state.doc.toString());
  });
}

function buildState(options, compartments) {
  const fileName = options.fileName || "";
  const label = options.label || (fileName ? `Editor: ${fileName}` : "Editor");
  return EditorState.create({
    doc: options.doc || "",
    extensions: [
      lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
      indentOnInput(), bracketMatching(), highlightActiveLine(), highlightSelectionMatches(),
      search({ top: true }),
      options.closeBrackets === false ? [] : closeBrackets(),
      EditorState.tabSize.of(4), indentUnit.of("    "),
      hookKeymap(options),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
      EditorView.contentAttributes.of({ "aria-label": label }),
      languageExtension(options.language || languageForFile(fileName)),
      compartments.theme.of(themeExtension(options.theme || "light")),
      compartments.readOnly.of(readOnlyExtension(Boolean(options.readOnly))),
      multiLineTyping(),
      changeListener(options),
    ],
  });
}

/** A new editor inside options.parent. */
export function create(options) {
  if (!options || !(options.parent instanceof Element)) {
    throw new TypeError("DojoEditor.create: options.parent must be an element");
  }
  const compartments = { theme: new Compartment(), readOnly: new Compartment() };
  const view = new EditorView({ state: buildState(options, compartments), parent: options.parent });
  return {
    view,
    getValue: () => view.state.doc.toString(),
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: String(text) } });
    },
    focus: () => view.focus(),
    setTheme(name) {
      view.dispatch({ effects: compartments.theme.reconfigure(themeExtension(name)) });
    },
    setReadOnly(readOnly) {
      view.dispatch({ effects: compartments.readOnly.reconfigure(readOnlyExtension(Boolean(readOnly))) });
    },
    goToLine(number) {
      const line = view.state.doc.line(Math.min(Math.max(1, Math.floor(number)), view.state.doc.lines));
      view.dispatch({ selection: EditorSelection.range(line.from, line.to), scrollIntoView: true });
      view.focus();
    },
    destroy: () => view.destroy(),
  };
}

/** Replace a <textarea> by an editor that keeps the textarea's value in step (progressive enhancement). */
export function fromTextarea(textarea, options = {}) {
  if (!(textarea instanceof HTMLTextAreaElement)) {
    throw new TypeError("DojoEditor.fromTextarea: the first argument must be a <textarea>");
  }
  const parent = document.createElement("div");
  parent.className = "dojo-editor";
  textarea.after(parent);
  const onChange = options.onChange;
  let editor;
  try {
    editor = create({
      doc: textarea.value,
      readOnly: textarea.readOnly,
      label: textarea.getAttribute("aria-label") || undefined,
      ...options,
      parent,
      onChange(text) {
        textarea.value = text;
        if (typeof onChange === "function") onChange(text);
      },
    });
  } catch (error) {
    parent.remove(); // the textarea stays the editor
    throw error;
  }
  textarea.value = editor.getValue();
  // A hidden required field would block the form's submission with an error nobody can see.
  const wasRequired = textarea.required;
  textarea.required = false;
  // Hidden even where page CSS gives textareas a display (the hidden attribute alone loses to it), and
  // its name moves to the editor, so a label finds one element.
  const ariaLabel = textarea.getAttribute("aria-label");
  textarea.removeAttribute("aria-label");
  textarea.hidden = true;
  textarea.style.display = "none";
  const focusEditor = (event) => { event.preventDefault(); editor.focus(); };
  const labels = Array.from(textarea.labels || []);
  for (const label of labels) label.addEventListener("click", focusEditor);
  const destroy = editor.destroy;
  editor.destroy = () => {
    destroy();
    for (const label of labels) label.removeEventListener("click", focusEditor);
    parent.remove();
    textarea.hidden = false;
    textarea.style.removeProperty("display");
    if (ariaLabel !== null) textarea.setAttribute("aria-label", ariaLabel);
    textarea.required = wasRequired;
  };
  return editor;
}
