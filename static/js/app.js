// Show why a request failed (htmx leaves the page unchanged on 4xx/5xx other than 422). Page scripts that
// send their own requests call it too; status 0 means the request did not reach the server.
window.dojoShowRequestError = function (status, contentType, text) {
  var box = document.getElementById("request-error");
  if (!box) return;
  var message = status ? "The request failed (" + status + "). Reload the page and try again."
    : "The request did not reach the server. Check the connection and try again.";
  var type = contentType || "";
  try {
    if (type.indexOf("application/json") === 0) {
      var detail = JSON.parse(text).detail;
      if (typeof detail === "string") message = detail;
    } else if (type.indexOf("text/html") === 0) {
      var doc = new DOMParser().parseFromString(text, "text/html");
      var alert = doc.querySelector("main [role=alert]:not(#request-error)");
      if (alert && alert.textContent.trim()) message = alert.textContent.trim();
    }
  } catch (ignored) {
    // Keep the generic message when the body cannot be read.
  }
  box.textContent = message;
  box.hidden = false;
  box.focus();
};

document.addEventListener("htmx:responseError", function (event) {
  var xhr = event.detail.xhr;
  window.dojoShowRequestError(xhr.status, xhr.getResponseHeader("content-type"), xhr.responseText);
});

document.addEventListener("htmx:beforeRequest", function () {
  var box = document.getElementById("request-error");
  if (box) box.hidden = true;
});

// Buttons that change something hard to undo ask first (data-confirm holds the question).
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest("[data-confirm]") : null;
  if (button && !window.confirm(button.getAttribute("data-confirm"))) event.preventDefault();
});

// Copy buttons (an invite link): the button names the field it copies (data-copy); without script the
// field stays selectable, and the button stays hidden.
function dojoShowCopyButtons(root) {
  root.querySelectorAll("button[data-copy]").forEach(function (button) { button.hidden = false; });
}
document.addEventListener("DOMContentLoaded", function () { dojoShowCopyButtons(document); });
document.addEventListener("htmx:afterSwap", function (event) { dojoShowCopyButtons(event.target); });
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest("button[data-copy]") : null;
  if (!button) return;
  var field = document.getElementById(button.getAttribute("data-copy"));
  var status = document.getElementById(button.getAttribute("data-copy") + "-copied");
  if (!field) return;
  function done(text) { if (status) status.textContent = text; }
  field.select();
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(field.value).then(function () { done("Copied."); },
      function () { done(document.execCommand("copy") ? "Copied." : "Select the link and copy it."); });
  } else {
    done(document.execCommand("copy") ? "Copied." : "Select the link and copy it.");
  }
});
