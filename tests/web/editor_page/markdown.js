// Drives the committed dojo-editor-markdown.min.js for tests/web/test_editor_bundle.py.
"use strict";

window.editorTest = {
  brief: DojoEditor.fromTextarea(document.getElementById("brief"), { fileName: "brief.md", label: "Editor: brief.md" }),
};
