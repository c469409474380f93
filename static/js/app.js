// Show why an htmx request failed (htmx leaves the page unchanged on 4xx/5xx other than 422).
document.addEventListener("htmx:responseError", function (event) {
  var box = document.getElementById("request-error");
  if (!box) return;
  var xhr = event.detail.xhr;
  var message = "The request failed (" + xhr.status + "). Reload the page and try again.";
  var type = xhr.getResponseHeader("content-type") || "";
  try {
    if (type.indexOf("application/json") === 0) {
      var detail = JSON.parse(xhr.responseText).detail;
      if (typeof detail === "string") message = detail;
    } else if (type.indexOf("text/html") === 0) {
      var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
      var alert = doc.querySelector("main [role=alert]:not(#request-error)");
      if (alert && alert.textContent.trim()) message = alert.textContent.trim();
    }
  } catch (ignored) {
    // Keep the generic message when the body cannot be read.
  }
  box.textContent = message;
  box.hidden = false;
  box.focus();
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
