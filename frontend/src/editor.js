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
 *     lineWrapping  false: long lines wrap instead of scrolling sideways
 *     onChanges(changes, userEvent, cursorLine)  after each transaction that changed the text:
 *                 changes is the CodeMirror ChangeSet as JSON (ChangeSet.toJSON(), apply it with
 *                 DojoEditor.applyChanges), userEvent the transaction's kind ("input.type",
 *                 "input.paste", "delete.backward", "undo", ... or "" for setValue), cursorLine the
 *                 1-based line of the main cursor afterwards (for recording keystrokes and following)
 *     onCursor(line)  when the main cursor moves to another line without a change of the text
 *     onUserSelect()  when the user (mouse or keys) moves the cursor or selection, e.g. to stop following
 *   A key is bound only when its hook is given.
 *
 *   editor: getValue() -> text; setValue(text) (undoable, calls onChange); focus();
 *           setTheme("light"|"dark"); setReadOnly(bool); goToLine(line) (1-based: select the line,
 *           scroll to it, focus); destroy() (fromTextarea: shows the textarea again); view (EditorView)
 *           setLineWrapping(bool); applyChanges(changes) (a ChangeSet's JSON from onChanges: false and
 *           nothing changed when it does not fit the text, not undoable, calls onChange);
 *           revealLine(line) (scroll a line into view without moving focus or the selection);
 *           markLine(line | null) (highlight one line, e.g. another person's cursor line)
 *   DojoEditor.applyChanges(text, changes) -> the text after a ChangeSet's JSON (a RangeError when it
 *           does not fit), for replaying a recording without an editor
 *
 * Keyboard: Tab and Shift+Tab indent by 4 spaces; Escape then Tab (or Shift+Tab) leaves the editor,
 * so keyboard users are never trapped. Ctrl/Cmd+F opens the search panel, Ctrl/Cmd+Z undoes (each
 * editor has its own history: make one editor per file).
 */
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit } from "@codemirror/language";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import {
  ChangeSet, Compartment, EditorSelection, EditorState, Prec, StateEffect, StateField, Text, Transaction,
} from "@codemirror/state";
import {
  Decoration, drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars,
  keymap, lineNumbers,
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

/** The 1-based line of the main cursor. */
function cursorLineOf(state) {
  return state.doc.lineAt(state.selection.main.head).number;
}

/** The kind of change a transaction is ("input.type", "input.paste", "undo", ...), "" when none was given. */
function userEventOf(tr) {
  return tr.annotation(Transaction.userEvent) || "";
}

/** Tell onChanges about each transaction's change set, onCursor about cursor-line moves, onUserSelect about
 * the user's selections. */
function recordingListener(options) {
  let lastLine = null;
  return EditorView.updateListener.of((update) => {
    if (typeof options.onUserSelect === "function"
        && update.transactions.some((tr) => tr.isUserEvent("select") && !tr.docChanged)) {
      options.onUserSelect();
    }
    const line = cursorLineOf(update.state);
    if (typeof options.onChanges === "function") {
      for (const tr of update.transactions) {
        if (!tr.docChanged) continue;
        options.onChanges(tr.changes.toJSON(), userEventOf(tr), tr.state.doc.lineAt(tr.state.selection.main.head).number);
      }
    }
    if (typeof options.onCursor === "function" && !update.docChanged && update.selectionSet && line !== lastLine) {
      options.onCursor(line);
    }
    lastLine = line;
  });
}

/** One highlighted line (markLine): another person's cursor line in a follow view. */
const setMarkedLine = StateEffect.define();
const markedLineDecoration = Decoration.line({ class: "cm-dojo-marked-line" });
const markedLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setMarkedLine)) continue;
      const number = effect.value;
      if (number === null || tr.state.doc.lines < 1) {
        next = Decoration.none;
      } else {
        const line = tr.state.doc.line(Math.min(Math.max(1, Math.floor(number)), tr.state.doc.lines));
        next = Decoration.set([markedLineDecoration.range(line.from)]);
      }
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});
const markedLineTheme = EditorView.baseTheme({
  ".cm-dojo-marked-line": { boxShadow: "inset 3px 0 0 #b35900", backgroundColor: "rgba(179, 89, 0, 0.10)" },
});

function wrapExtension(lineWrapping) {
  return lineWrapping ? EditorView.lineWrapping : [];
}

/** A ChangeSet from its JSON, checked against a document length (a RangeError when it does not fit). */
function changeSetFor(changes, length) {
  const set = ChangeSet.fromJSON(changes);
  if (set.length !== length) {
    throw new RangeError(`the changes are for a text of ${set.length} characters, this one has ${length}`);
  }
  return set;
}

/** The text after applying a ChangeSet's JSON (from onChanges) to it. */
export function applyChanges(text, changes) {
  const doc = Text.of(String(text).split("\n"));
  return changeSetFor(changes, doc.length).apply(doc).toString();
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
      compartments.wrap.of(wrapExtension(Boolean(options.lineWrapping))),
      markedLine, markedLineTheme,
      multiLineTyping(),
      changeListener(options),
      recordingListener(options),
    ],
  });
}

/** A new editor inside options.parent. */
export function create(options) {
  if (!options || !(options.parent instanceof Element)) {
    throw new TypeError("DojoEditor.create: options.parent must be an element");
  }
  const compartments = { theme: new Compartment(), readOnly: new Compartment(), wrap: new Compartment() };
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
    setLineWrapping(lineWrapping) {
      view.dispatch({ effects: compartments.wrap.reconfigure(wrapExtension(Boolean(lineWrapping))) });
    },
    applyChanges(changes) {
      let set;
      try {
        set = changeSetFor(changes, view.state.doc.length);
      } catch (error) {
        return false;
      }
      view.dispatch({ changes: set, annotations: Transaction.addToHistory.of(false) });
      return true;
    },
    revealLine(number) {
      const line = view.state.doc.line(Math.min(Math.max(1, Math.floor(number)), view.state.doc.lines));
      view.dispatch({ effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
    },
    markLine(number) {
      view.dispatch({ effects: setMarkedLine.of(number === null || number === undefined ? null : Number(number)) });
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
