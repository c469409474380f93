// Follow mode on the interviewer's interview page (templates/review/_live.html): the candidate's files in
// read-only editors, kept up to date from the server-sent events of /api/interviews/{id}/live.
// Following (on by default) shows the candidate's file and scrolls to their line; scrolling, selecting or
// opening another file stops it, and the Follow button resumes it. Without this script the page shows
// the latest saved text, and a reload shows newer text.
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root) return;
  var followButton = document.getElementById("live-follow");
  var hint = document.getElementById("live-follow-hint");
  var fileGroup = root.querySelector(".live-files");
  var status = function (name) { return root.querySelector('[data-live="' + name + '"]'); };
  var editors = {}; // file -> {editor, box, button}
  var candidateFile = (status("file") || {}).textContent || "";
  var cursorLine = parseInt((status("line") || {}).textContent, 10) || null;
  var shownFile = candidateFile;
  var following = true;

  function setFollowing(on) {
    following = on;
    followButton.setAttribute("aria-pressed", on ? "true" : "false");
    hint.hidden = !on;
    if (on) { show(candidateFile); reveal(); }
  }

  function show(name) {
    if (!editors[name]) return;
    shownFile = name;
    Object.keys(editors).forEach(function (other) {
      var entry = editors[other];
      entry.box.hidden = other !== name;
      entry.button.setAttribute("aria-pressed", other === name ? "true" : "false");
    });
    if (editors[name].editor) editors[name].editor.view.requestMeasure();
  }

  function reveal() {
    var entry = editors[candidateFile];
    if (!entry || !entry.editor || !cursorLine) return;
    entry.editor.markLine(cursorLine);
    if (following) entry.editor.revealLine(cursorLine);
  }

  function markCandidateFile() {
    Object.keys(editors).forEach(function (name) {
      var button = editors[name].button;
      button.textContent = name === candidateFile ? name + " (candidate here)" : name;
      if (editors[name].editor && name !== candidateFile) editors[name].editor.markLine(null);
    });
    status("file").textContent = candidateFile;
  }

  // ---- The files: read-only editors (textareas without the bundle), one shown at a time ----
  root.querySelectorAll("details.live-file").forEach(function (box) {
    var name = box.dataset.file;
    var area = box.querySelector("textarea");
    var entry = { box: box, editor: null, area: area };
    box.open = true;
    box.querySelector("summary").hidden = true;
    if (window.DojoEditor) {
      try {
        entry.editor = window.DojoEditor.fromTextarea(area, {
          fileName: name, readOnly: true,
          onUserSelect: function () { if (following) setFollowing(false); },
        });
        var scroller = entry.editor.view.scrollDOM;
        scroller.tabIndex = 0; // a long file scrolls inside: keyboard users can scroll it too
        scroller.setAttribute("aria-label", "Scroll the candidate's " + name);
        ["wheel", "touchmove"].forEach(function (type) {
          scroller.addEventListener(type, function () { if (following) setFollowing(false); }, { passive: true });
        });
        scroller.addEventListener("keydown", function (event) {
          if (/^(PageUp|PageDown|ArrowUp|ArrowDown|Home|End)$/.test(event.key) && following) setFollowing(false);
        });
      } catch (error) { entry.editor = null; }
    }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button button-small live-file-button";
    button.textContent = name;
    button.addEventListener("click", function () {
      if (name !== candidateFile && following) setFollowing(false);
      show(name);
    });
    fileGroup.appendChild(button);
    entry.button = button;
    editors[name] = entry;
  });
  fileGroup.hidden = false;
  followButton.hidden = false;
  hint.hidden = false;
  followButton.addEventListener("click", function () { setFollowing(!following); });
  markCandidateFile();
  show(candidateFile in editors ? candidateFile : Object.keys(editors)[0]);
  reveal();

  function setText(name, text) {
    var entry = editors[name];
    if (!entry) return;
    if (!entry.editor) { entry.area.value = text; return; }
    var old = entry.editor.getValue();
    if (old === text) return;
    // Only the changed stretch, so the view keeps its place and the edit is where the candidate typed.
    var start = 0;
    while (start < old.length && start < text.length && old.charCodeAt(start) === text.charCodeAt(start)) start++;
    var end = 0;
    while (end < old.length - start && end < text.length - start
           && old.charCodeAt(old.length - 1 - end) === text.charCodeAt(text.length - 1 - end)) end++;
    entry.editor.view.dispatch({ changes: { from: start, to: old.length - end, insert: text.slice(start, text.length - end) } });
  }

  // ---- The clock ----
  var seconds = parseInt(root.dataset.seconds, 10) || 0;
  var state = root.dataset.state;
  function showClock() {
    status("clock").textContent = "+" + Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }
  setInterval(function () { if (state === "started") { seconds += 1; showClock(); } }, 1000);

  // ---- Runs and Submits ----
  var attemptList = document.getElementById("live-attempts");
  function showAttempt(data) {
    var empty = attemptList.querySelector("[data-empty]");
    if (empty) empty.remove();
    var item = attemptList.querySelector('[data-attempt="' + data.id + '"]');
    if (!item) {
      item = document.createElement("li");
      item.dataset.attempt = data.id;
      attemptList.appendChild(item);
    }
    var kind = data.kind.charAt(0).toUpperCase() + data.kind.slice(1);
    // The server words the verdict as the review does (a Run's public checks, its hidden ones beside).
    var text = kind + " " + data.number + " · " + (data.verdict || data.status);
    if (data.progress) text += " · " + data.progress;
    // Points are what a Submit scores (a Run's stored score stays in the event, as the contract has it).
    if (data.kind === "submit" && data.score !== null && data.score !== undefined) {
      text += " · " + Math.round(data.score * 1000) / 10 + " points";
    }
    item.textContent = text;
    item.className = "attempt-" + (data.shown_status || data.status);
  }

  // ---- The stream ----
  if (root.dataset.following !== "yes" || !window.EventSource) return;
  var connection = status("connection");
  var url = root.dataset.streamUrl + "?after=" + encodeURIComponent(root.dataset.lastEventId || "0");
  var source = new EventSource(url, { withCredentials: true });
  source.onopen = function () { connection.textContent = ""; };
  source.onerror = function () {
    if (source.readyState === EventSource.CLOSED) connection.textContent = "· live updates stopped: reload the page";
    else connection.textContent = "· reconnecting…";
  };
  source.addEventListener("draft", function (event) {
    var data = JSON.parse(event.data);
    setText(data.file, data.text);
    if (typeof data.seconds === "number") seconds = data.seconds;
    if (data.cursor_line) {
      cursorLine = data.cursor_line;
      var wrap = status("line-wrap");
      if (wrap) wrap.hidden = false;
      status("line").textContent = String(cursorLine);
    }
    if (data.cursor_line || data.file !== candidateFile) {
      if (data.cursor_line) candidateFile = data.file;
      markCandidateFile();
      if (following) show(candidateFile);
      reveal();
    }
    status("activity").textContent = "typing";
  });
  source.addEventListener("presence", function (event) {
    var data = JSON.parse(event.data);
    if (data.file && editors[data.file] && data.file !== candidateFile) {
      candidateFile = data.file;
      markCandidateFile();
      if (following) show(candidateFile);
    }
    if (data.cursor_line) { cursorLine = data.cursor_line; status("line").textContent = String(cursorLine); reveal(); }
    var words = [];
    if (data.focused === false) words.push("away from the page");
    else if (data.focused === true) words.push("on the page");
    if (data.active === false) words.push("idle");
    else if (data.active === true && data.focused !== false) words.push("active");
    if (words.length) status("activity").textContent = words.join(", ");
  });
  source.addEventListener("attempt", function (event) { showAttempt(JSON.parse(event.data)); });
  source.addEventListener("message", function (event) {
    var data = JSON.parse(event.data);
    var list = root.querySelector('[aria-label="Messages sent to the candidate"]');
    if (!list || list.querySelector('[data-message="' + data.id + '"]')) return;
    var known = Array.prototype.some.call(list.querySelectorAll("li"), function (li) {
      return li.textContent.indexOf(data.text) !== -1;
    });
    if (known) return;
    var empty = list.querySelector(".empty");
    if (empty) empty.remove();
    var item = document.createElement("li");
    item.dataset.message = data.id;
    item.textContent = "+" + Math.floor(data.seconds / 60) + ":" + String(data.seconds % 60).padStart(2, "0") + " " + data.text;
    list.appendChild(item);
  });
  source.addEventListener("ended", function (event) {
    var data = JSON.parse(event.data);
    state = data.state || "submitted";
    status("state").textContent = state;
    status("state").className = "state state-" + state;
    status("activity").textContent = "the interview has ended";
    source.close();
  });
})();
