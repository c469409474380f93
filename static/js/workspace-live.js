// The candidate's side of a live interview (templates/workspace/_messages.html): new messages from the
// interviewer as they are sent, and what followers and playback need from the editor. workspace.js
// calls window.dojoLive: changed() with each CodeMirror change set, take() when it saves (the report
// rides with the autosave or the Run/Submit). Presence (the file shown, focus, idle) is sent on its own
// when it changes.
(function () {
  "use strict";
  var box = document.getElementById("interviewer-messages");
  if (!box) return;
  var csrf = (document.querySelector("input[name=csrf_token]") || {}).value || "";
  var IDLE_MS = 30000;
  var FORM_FIELD_CHARS = 19000; // under the server's MAX_FORM_FIELD_CHARS (20 000)
  var pending = {}; // file -> [[time, ChangeSet JSON, user event], ...]
  var cursorLine = null;
  var lastChange = 0;
  var presence = { file: null, focused: !document.hidden, active: false };

  function shownFile() {
    var tab = document.querySelector('[role="tab"][aria-selected="true"][data-file]');
    return tab ? tab.dataset.file : null;
  }

  window.dojoLive = {
    changed: function (file, changes, userEvent, line) {
      (pending[file] = pending[file] || []).push([Date.now(), changes, userEvent || ""]);
      cursorLine = line;
      lastChange = Date.now();
      if (!presence.active) { presence.active = true; }
    },
    // The report for a save of these files: their change sets with their age, and where the candidate is.
    take: function (files) {
      var now = Date.now(), changes = {};
      (files || Object.keys(pending)).forEach(function (file) {
        if (!pending[file]) return;
        changes[file] = pending[file].map(function (entry) { return [Math.max(0, now - entry[0]), entry[1], entry[2]]; });
        delete pending[file];
      });
      presence.file = shownFile();
      return { file: presence.file, cursor_line: cursorLine, focused: !document.hidden && document.hasFocus(),
               active: now - lastChange < IDLE_MS, changes: changes };
    },
    // The same for a Run/Submit form's `live` field, or "" when it would pass the form field limit (the
    // server then records the files' whole text instead of the keystrokes).
    formValue: function (files) {
      var value = JSON.stringify(window.dojoLive.take(files));
      return value.length <= FORM_FIELD_CHARS ? value : "";
    },
  };

  function sendPresence() {
    var report = { file: shownFile(), focused: !document.hidden && document.hasFocus(),
                   active: Date.now() - lastChange < IDLE_MS, cursor_line: cursorLine };
    if (report.file === presence.file && report.focused === presence.focused && report.active === presence.active) return;
    presence = report;
    fetch(box.dataset.presenceUrl, {
      method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(report),
    }).catch(function () {});
  }
  window.addEventListener("focus", sendPresence);
  window.addEventListener("blur", sendPresence);
  document.addEventListener("visibilitychange", sendPresence);
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest('[role="tab"]')) setTimeout(sendPresence, 0);
  });
  document.addEventListener("keyup", function (event) {
    if (event.target.closest && event.target.closest('[role="tab"]')) setTimeout(sendPresence, 0);
  });
  setInterval(sendPresence, 5000); // notices idleness
  presence.file = shownFile();

  // ---- Messages ----
  if (!window.EventSource) return;
  var list = box.querySelector("ol");
  var url = box.dataset.streamUrl + "?after=" + encodeURIComponent(box.dataset.lastEventId || "0");
  var source = new EventSource(url, { withCredentials: true });
  source.addEventListener("message", function (event) {
    var data = JSON.parse(event.data);
    if (list.querySelector('[data-message="' + data.id + '"]')) return;
    var empty = list.querySelector(".empty");
    if (empty) empty.remove();
    var item = document.createElement("li");
    item.dataset.message = data.id;
    var time = document.createElement("span");
    time.className = "said-time";
    time.textContent = "+" + Math.floor(data.seconds / 60) + ":" + String(data.seconds % 60).padStart(2, "0");
    item.appendChild(time);
    item.appendChild(document.createTextNode(" " + data.text));
    list.appendChild(item);
    box.removeAttribute("data-empty");
    box.classList.add("ws-messages-new");
  });
  source.addEventListener("ended", function () { source.close(); });
})();
