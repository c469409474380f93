// Enhance the authoring pages' code and Markdown textareas with the shared editor when its bundle is
// on the page. Without it (or without JavaScript) the plain textareas are the editors.
(function () {
  var editors = {};
  window.dojoAuthoringEditors = editors;  // by textarea id, for tests and other scripts

  function enhance() {
    if (!window.DojoEditor || typeof window.DojoEditor.fromTextarea !== "function") return;
    document.querySelectorAll("textarea[data-editor]").forEach(function (textarea) {
      var label = document.querySelector("label[for='" + textarea.id + "']");
      editors[textarea.id] = window.DojoEditor.fromTextarea(textarea, {
        language: textarea.dataset.editor,
        label: label ? label.textContent.trim() : textarea.name,
        // The editor copies its text into the textarea; tell listeners (the brief's live preview).
        onChange: function () {
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        }
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", enhance);
  } else {
    enhance();
  }
})();
