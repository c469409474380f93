// Enhance the authoring pages' code and Markdown textareas with the shared editor when it is present.
// Without it (or without JavaScript) the plain textareas work as they are.
(function () {
  function enhance() {
    if (!window.DojoEditor || typeof window.DojoEditor.fromTextarea !== "function") return;
    document.querySelectorAll("textarea[data-editor]").forEach(function (textarea) {
      var label = document.querySelector("label[for='" + textarea.id + "']");
      window.DojoEditor.fromTextarea(textarea, {
        language: textarea.dataset.editor,
        label: label ? label.textContent.trim() : textarea.name
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", enhance);
  } else {
    enhance();
  }
})();
