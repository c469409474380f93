// Drives the committed DojoEditor bundle for tests/web/test_editor_bundle.py: every hook call is
// recorded in window.editorTest so the test can read what happened.
"use strict";

const calls = [];
const keydowns = [];
const record = (name) => () => calls.push(name);
const recorded = []; // onChanges: { changes (ChangeSet JSON), userEvent, cursorLine }

// Whether Ctrl/Cmd+S reached the page with its default (the browser's save dialog) prevented.
document.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") keydowns.push(event.defaultPrevented);
});

// The label comes from the textarea's aria-label, as on the workspace page.
const model = DojoEditor.fromTextarea(document.getElementById("model"), {
  language: "python",
  onRun: record("run"),
  onSubmit: record("submit"),
  onSave: record("save"),
  onPaste: (text) => calls.push(`paste:${text}`),
  onChange: () => calls.push("change"),
  onChanges: (changes, userEvent, cursorLine) => recorded.push({ changes, userEvent, cursorLine }),
});

const data = DojoEditor.create({
  parent: document.getElementById("data-editor"),
  fileName: "data.py",
  doc: "def get_batch(split):\n    return split\n",
});

window.editorTest = { calls, keydowns, model, data, recorded };
