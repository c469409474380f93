// The candidate workspace: file tabs, the code editor, autosave with a revision check, keyboard
// shortcuts, Run/Submit/scratch through the panels' request queues (workspace-panels.js), the IDE layout's
// panes, the countdown, Results announcements and editor events. Everything here enhances a
// page that already works as plain forms; data comes from data-* attributes (no inline script).
(function () {
  "use strict";

  var root = document.getElementById("workspace");
  if (!root) return;
  var form = document.getElementById("ws-form");
  var csrf = (form.querySelector("input[name=csrf_token]") || {}).value || "";
  var revision = parseInt(root.dataset.revision, 10) || 0;
  var readOnly = root.dataset.timeIsUp === "yes";
  var editors = {}; // file name -> {get, set, focus, setTheme, view, fixed}
  // The names of the files the candidate writes: a read-only file (data-readonly, the scenario's own) is
  // shown but never marked dirty, saved or sent with Run/Submit.
  function writable() {
    return Object.keys(editors).filter(function (name) { return !editors[name].fixed; });
  }
  var dirtyFiles = {};
  var dirtyNotes = {};
  var saveTimer = null;
  var saving = false;
  var behind = false;
  var AUTOSAVE_DELAY_MS = 800;
  var LARGE_PASTE = 200;

  // ---- The IDE layout (80rem and wider): panes scroll on their own, so each takes focus for keyboard scrolling ----
  var ide = window.matchMedia("(min-width: 80rem)");
  function applyLayout() {
    root.querySelectorAll(".ws-side, .ws-pane").forEach(function (pane) {
      if (ide.matches) pane.tabIndex = 0;
      else pane.removeAttribute("tabindex");
    });
    Object.keys(editors).forEach(function (name) { if (editors[name].view) editors[name].view.requestMeasure(); });
  }

  // ---- Tabs (WAI-ARIA tabs with roving tabindex; without script each tab is a submit button) ----
  var tabs = Array.prototype.slice.call(root.querySelectorAll("[role=tab]"));
  var resetButton = document.getElementById("reset-button");

  function activeFile() {
    var selected = tabs.filter(function (t) { return t.getAttribute("aria-selected") === "true"; })[0];
    return selected ? selected.dataset.file : null;
  }

  function selectTab(tab, focus) {
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
    if (resetButton) resetButton.value = tab.dataset.file;
    var url = new URL(window.location.href);
    url.searchParams.set("file", tab.dataset.file);
    url.searchParams.delete("attempt");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    if (focus) tab.focus();
    var editor = editors[tab.dataset.file];
    if (editor && editor.view) editor.view.requestMeasure();
  }

  tabs.forEach(function (tab, index) {
    tab.addEventListener("click", function (event) {
      event.preventDefault();
      selectTab(tab, false);
    });
    tab.addEventListener("keydown", function (event) {
      var next = null;
      if (event.key === "ArrowRight") next = tabs[(index + 1) % tabs.length];
      else if (event.key === "ArrowLeft") next = tabs[(index - 1 + tabs.length) % tabs.length];
      else if (event.key === "Home") next = tabs[0];
      else if (event.key === "End") next = tabs[tabs.length - 1];
      if (next) {
        event.preventDefault();
        selectTab(next, true);
      }
    });
  });

  function showFile(name) {
    var tab = tabs.filter(function (t) { return t.dataset.file === name; })[0];
    if (tab) selectTab(tab, false);
  }

  // ---- Editors: CodeMirror when its bundle loaded, else the plain textareas ----
  var prefersDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var theme = localStorage.getItem("dojo-editor-theme") || (prefersDark ? "dark" : "light");
  var themeButton = document.getElementById("theme-toggle");

  function textareaEditor(area) {
    return {
      get: function () { return area.value; },
      set: function (text) { area.value = text; },
      focus: function () { area.focus(); },
      setTheme: function () {},
      setWrap: function (on) { area.wrap = on ? "soft" : "off"; },
      view: null,
      gotoLine: function (line) {
        var lines = area.value.split("\n");
        var offset = 0;
        for (var i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
        area.focus();
        area.setSelectionRange(offset, offset + (lines[line - 1] || "").length);
      },
    };
  }

  root.querySelectorAll("textarea.code").forEach(function (area) {
    var name = area.dataset.file;
    var fixed = area.dataset.readonly === "yes";
    if (window.DojoEditor && window.DojoEditor.fromTextarea) {
      var editor = window.DojoEditor.fromTextarea(area, {
        language: "python",
        label: area.getAttribute("aria-label") || "Editor: " + name,
        theme: theme,
        readOnly: readOnly || fixed,
        onChange: function () { if (!fixed) markDirtyFile(name); },
        onRun: function () { clickButton("run-button"); },
        onSubmit: function () { clickButton("submit-button"); },
        onSave: function () { saveNow(); },
        onPaste: function (text) { if (!fixed) reportPaste(name, text); },
        onChanges: function (changes, userEvent, line) {  // keystrokes of an interview (workspace-live.js)
          if (window.dojoLive && !fixed) window.dojoLive.changed(name, changes, userEvent, line);
        },
      });
      // A long file scrolls inside the editor: its scroll area takes focus too, so keyboard users can
      // scroll it without entering the text.
      editor.view.scrollDOM.tabIndex = 0;
      editor.view.scrollDOM.setAttribute("aria-label", "Scroll " + name);
      editors[name] = {
        get: editor.getValue, set: editor.setValue, focus: editor.focus, setTheme: editor.setTheme,
        view: editor.view, gotoLine: editor.goToLine, fixed: fixed,
        // Wrapping long lines: the bundle's own switch when it has one, else page CSS (workspace.css, .cm-wrap).
        setWrap: editor.setLineWrapping ? editor.setLineWrapping : function (on) {
          editor.view.dom.classList.toggle("cm-wrap", on);
          editor.view.requestMeasure();
        },
      };
    } else {
      editors[name] = textareaEditor(area);
      editors[name].fixed = fixed;
      if (fixed) return;
      area.addEventListener("input", function () { markDirtyFile(name); });
      area.addEventListener("paste", function (event) {
        reportPaste(name, (event.clipboardData || window.clipboardData).getData("text") || "");
      });
    }
  });

  window.dojoEditors = editors;  // the layout's wrap switch (workspace-layout.js) reaches them here

  function applyTheme() {
    Object.keys(editors).forEach(function (name) { editors[name].setTheme(theme); });
    if (themeButton) {
      themeButton.setAttribute("aria-pressed", theme === "dark" ? "true" : "false");
      themeButton.hidden = !window.DojoEditor;
    }
  }
  if (themeButton) {
    themeButton.addEventListener("click", function () {
      theme = theme === "dark" ? "light" : "dark";
      localStorage.setItem("dojo-editor-theme", theme);
      applyTheme();
    });
  }
  applyTheme();
  applyLayout();
  ide.addEventListener("change", applyLayout);

  // ---- Autosave with a revision check: a tab that is behind is told so and overwrites nothing ----
  var saveStatus = document.getElementById("save-status");
  var banner = document.getElementById("behind-banner");
  var channel = window.BroadcastChannel ? new BroadcastChannel("dojo-draft:" + root.dataset.slug + ":" + root.dataset.scope) : null;

  function setStatus(text, isError) {
    saveStatus.textContent = text;
    saveStatus.classList.toggle("save-error", !!isError);
  }

  var applyingRemote = false; // text loaded from the server is not an edit to save again

  function markDirtyFile(name) {
    if (readOnly || applyingRemote || (editors[name] && editors[name].fixed)) return;
    dirtyFiles[name] = true;
    scheduleSave();
  }

  root.querySelectorAll("textarea.note").forEach(function (area) {
    area.addEventListener("input", function () {
      if (readOnly) return;
      dirtyNotes[area.dataset.note] = true;
      scheduleSave();
    });
  });

  // In an interview the interviewer may be following: a save goes at most INTERVIEW_MAX_WAIT_MS after the
  // oldest unsaved change, even while the typing goes on (followers see the text within about a second).
  var INTERVIEW_MAX_WAIT_MS = 450, firstUnsaved = 0;
  function scheduleSave() {
    setStatus("Unsaved changes");
    clearTimeout(saveTimer);
    var now = Date.now();
    if (!firstUnsaved) firstUnsaved = now;
    var delay = root.dataset.interview !== "yes" ? AUTOSAVE_DELAY_MS
      : Math.max(0, Math.min(AUTOSAVE_DELAY_MS, firstUnsaved + INTERVIEW_MAX_WAIT_MS - now));
    saveTimer = setTimeout(saveNow, delay);
  }

  function pendingBody(force) {
    var files = {}, notes = {};
    Object.keys(dirtyFiles).forEach(function (name) { files[name] = editors[name].get(); });
    Object.keys(dirtyNotes).forEach(function (id) { notes[id] = document.getElementById("note-" + id).value; });
    var body = { files: files, notes: notes, revision: revision, force: !!force };
    if (window.dojoLive) body.live = window.dojoLive.take(Object.keys(files));
    return body;
  }

  function saveNow(force) {
    clearTimeout(saveTimer);
    if (saving || behind && !force) return Promise.resolve();
    if (!Object.keys(dirtyFiles).length && !Object.keys(dirtyNotes).length) {
      setStatus("Saved as revision " + revision);
      return Promise.resolve();
    }
    var body = pendingBody(force);
    var sentFiles = dirtyFiles, sentNotes = dirtyNotes;
    firstUnsaved = 0;
    dirtyFiles = {};
    dirtyNotes = {};
    saving = true;
    setStatus("Saving…");
    return fetch(root.dataset.autosaveUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
      credentials: "same-origin",
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.detail || "The draft could not be saved (" + response.status + ").");
        return data;
      });
    }).then(function (data) {
      if (data.saved) {
        revision = data.revision;
        behind = false;
        banner.hidden = true;
        setStatus("Saved as revision " + revision);
        if (channel) channel.postMessage({ revision: revision });
      } else {
        keepDirty(sentFiles, sentNotes);
        showBehind();
      }
    }).catch(function (error) {
      keepDirty(sentFiles, sentNotes);
      setStatus(error.message + " Your text is still here; it will be saved again.", true);
      saveTimer = setTimeout(saveNow, 10000);
    }).then(function () {
      saving = false;
      if (!behind && (Object.keys(dirtyFiles).length || Object.keys(dirtyNotes).length)) scheduleSave();
    });
  }

  function keepDirty(files, notes) {
    Object.keys(files).forEach(function (k) { dirtyFiles[k] = true; });
    Object.keys(notes).forEach(function (k) { dirtyNotes[k] = true; });
  }

  function showBehind() {
    behind = true;
    banner.hidden = false;
    setStatus("Not saved: another tab or device changed this workspace", true);
  }

  function loadLatest(why) {
    return fetch(root.dataset.draftUrl, { credentials: "same-origin" }).then(function (r) { return r.json(); })
      .then(function (draft) {
        applyingRemote = true;
        Object.keys(draft.files).forEach(function (name) {
          if (editors[name] && !editors[name].fixed && editors[name].get() !== draft.files[name]) editors[name].set(draft.files[name]);
        });
        applyingRemote = false;
        root.querySelectorAll("textarea.note").forEach(function (area) {
          area.value = draft.notes[area.dataset.note] || "";
        });
        revision = draft.revision;
        dirtyFiles = {};
        dirtyNotes = {};
        behind = false;
        banner.hidden = true;
        setStatus(why || "Loaded revision " + revision);
      });
  }

  document.getElementById("load-latest").addEventListener("click", function () { loadLatest(); });
  document.getElementById("keep-mine").addEventListener("click", function () {
    writable().forEach(function (name) { dirtyFiles[name] = true; });
    root.querySelectorAll("textarea.note").forEach(function (area) { dirtyNotes[area.dataset.note] = true; });
    behind = false;
    saveNow(true);
  });

  function checkRemote() {
    if (document.hidden) return;
    fetch(root.dataset.draftUrl, { credentials: "same-origin" }).then(function (r) { return r.json(); })
      .then(function (draft) {
        if (draft.revision > revision && !saving) {
          if (Object.keys(dirtyFiles).length || Object.keys(dirtyNotes).length) showBehind();
          else loadLatest("Updated to revision " + draft.revision + ": it was changed in another tab or on another device");
        }
      }).catch(function () {});
  }
  if (channel) {
    channel.onmessage = function (event) {
      if (event.data && event.data.revision > revision) checkRemote();
    };
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden) checkRemote(); });

  window.addEventListener("beforeunload", function (event) {
    if (Object.keys(dirtyFiles).length || Object.keys(dirtyNotes).length) {
      saveNow();
      event.preventDefault();
    }
  });

  // ---- Run, Submit, Save and their keys ----
  function clickButton(id) {
    var button = document.getElementById(id);
    if (button && !button.disabled) button.click();
  }

  // ---- The Results panel and the scratch console: each has one request queue (workspace-panels.js) ----
  var notice = document.getElementById("workspace-notice");
  var requestError = document.getElementById("request-error");
  var attemptsChannel = window.BroadcastChannel
    ? new BroadcastChannel("dojo-attempts:" + root.dataset.slug + ":" + root.dataset.scope) : null;

  function panelOptions(name) {
    return {
      name: name, bodyId: name + "-body", noticeId: name + "-newer", csrf: csrf, channel: attemptsChannel,
      onError: window.dojoShowRequestError || function () {},
      onResponse: function (response) {
        // After Run, Submit or Run scratch the posted text is the draft's newest revision; go on from it.
        var newRevision = response.headers.get("X-Draft-Revision");
        if (newRevision) {
          revision = parseInt(newRevision, 10);
          setStatus("Saved as revision " + revision);
          if (channel) channel.postMessage({ revision: revision });
        }
      },
    };
  }
  var panels = window.DojoPanel
    ? { results: new window.DojoPanel(panelOptions("results")), console: new window.DojoPanel(panelOptions("console")) }
    : null;
  window.dojoPanels = panels;  // tests reach the areas' owners here

  function beforeAction() {
    notice.textContent = "";  // an earlier refusal no longer applies
    if (requestError) requestError.hidden = true;
  }

  if (panels) {
    // Run, Submit, Run scratch: the editors' text (and the notes) as the form posts them, through the queue.
    root.querySelectorAll("button[data-panel]").forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();
        if (button.disabled) return;
        beforeAction();
        var data = new FormData(form);
        data.set("kind", button.value);
        writable().forEach(function (name) { data.set("file:" + name, editors[name].get()); });
        if (window.dojoLive) data.set("live", window.dojoLive.formValue(writable()));
        clearTimeout(saveTimer);  // the attempt saves this text as the draft
        dirtyFiles = {};
        dirtyNotes = {};
        panels[button.dataset.panel].act({ url: form.action, method: "POST", body: data, button: button, starts: true });
      });
    });
    // Cancel inside a panel, and History's Results links (shown in the panel in place).
    root.addEventListener("submit", function (event) {
      var cancel = event.target.closest("form[data-panel-action]");
      var owner = cancel && (cancel.closest("#results-body") ? panels.results : cancel.closest("#console-body") ? panels.console : null);
      if (!owner) return;
      event.preventDefault();
      beforeAction();
      owner.act({ url: cancel.action, method: "POST", body: new FormData(cancel),
                  button: cancel.querySelector("button"), starts: false });
    });
    root.addEventListener("click", function (event) {
      var show = event.target.closest ? event.target.closest("a[data-panel-url]") : null;
      if (!show || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      beforeAction();
      panels.results.act({ url: show.dataset.panelUrl, method: "GET", body: null, button: null, starts: false });
      if (!ide.matches) document.getElementById("results").scrollIntoView({ block: "start" });
    });
    if (attemptsChannel) {
      attemptsChannel.onmessage = function (event) {
        panels.results.heard(event.data);
        panels.console.heard(event.data);
      };
    }
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) { panels.results.wake(); panels.console.wake(); }
    });
    panels.results.adopt();
    panels.console.adopt();
  }

  document.getElementById("save-button").addEventListener("click", function (event) {
    event.preventDefault();
    writable().forEach(function (name) { dirtyFiles[name] = true; });
    saveNow();
  });

  document.addEventListener("keydown", function (event) {
    var mod = event.ctrlKey || event.metaKey;
    // The editor handles its own keys (and marks them handled): act only on keys from elsewhere.
    if (!mod || event.defaultPrevented) return;
    if (event.key === "Enter" && event.shiftKey) {
      event.preventDefault();
      clickButton("submit-button");
    } else if (event.key === "Enter") {
      event.preventDefault();
      clickButton("run-button");
    } else if (event.key === "s" || event.key === "S") {
      event.preventDefault();
      writable().forEach(function (name) { dirtyFiles[name] = true; });
      saveNow();
    }
  });

  // ---- Confirmations (the no-script path asks on a page of its own) ----
  if (resetButton) {
    resetButton.addEventListener("click", function (event) {
      var name = activeFile();
      event.preventDefault();
      if (!window.confirm("Reset " + name + " to the starter? Your current text of it is replaced (a snapshot is kept).")) return;
      saveNow().then(function () {
        var reset = document.createElement("form");
        reset.method = "post";
        reset.action = resetButton.getAttribute("formaction");
        [["csrf_token", csrf], ["file", name], ["confirm", "yes"]].forEach(function (pair) {
          var input = document.createElement("input");
          input.type = "hidden";
          input.name = pair[0];
          input.value = pair[1];
          reset.appendChild(input);
        });
        document.body.appendChild(reset);
        window.onbeforeunload = null;
        reset.submit();
      });
    });
  }

  // ---- Results: announce status changes, jump to an error's line ----
  var resultsStatus = document.getElementById("results-status");
  var lastAnnounced = "";
  function announce() {
    var body = document.getElementById("results-body");
    var status = body ? body.dataset.status : "";
    if (status && status !== lastAnnounced) {
      resultsStatus.textContent = "Results: " + status;
      lastAnnounced = status;
    }
  }
  document.body.addEventListener("htmx:afterSettle", announce);
  lastAnnounced = (document.getElementById("results-body") || {}).dataset ? document.getElementById("results-body").dataset.status : "";

  root.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.goto-line") : null;
    if (!link) return;
    event.preventDefault();
    showFile(link.dataset.file);
    var editor = editors[link.dataset.file];
    if (editor) editor.gotoLine(parseInt(link.dataset.line, 10));
  });

  // ---- Countdown ----
  var countdown = document.getElementById("countdown");
  var countdownAnnounce = document.getElementById("countdown-announce");
  var endsAt = Date.parse(root.dataset.endsAt);
  var interview = root.dataset.interview === "yes";
  var warned = false;
  function tick() {
    var left = Math.round((endsAt - Date.now()) / 1000);
    if (left <= 0) {
      countdown.textContent = interview ? "Time is up" : "Over the budget by " + formatSeconds(-left);
      countdown.classList.add("countdown-low");
      if (interview && !readOnly && left < -35) { window.location.reload(); }
      return;
    }
    countdown.textContent = formatSeconds(left) + " left";
    if (left <= 300 && !warned) {
      warned = true;
      countdown.classList.add("countdown-low");
      countdownAnnounce.textContent = "Five minutes left.";
    }
  }
  function formatSeconds(total) {
    var h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    var mm = (h ? String(m).padStart(2, "0") : String(m)), ss = String(s).padStart(2, "0");
    return (h ? h + ":" : "") + mm + ":" + ss;
  }
  if (!isNaN(endsAt) && !readOnly) {
    tick();
    setInterval(tick, 1000);
  }

  // ---- Evidence for interviewers: large pastes and time away from the page ----
  function sendEvent(kind, detail) {
    fetch(root.dataset.eventsUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ kind: kind, detail: detail }),
      credentials: "same-origin",
      keepalive: true,
    }).catch(function () {});
  }
  function reportPaste(name, text) {
    // The text goes along so the server can fingerprint its pieces; it keeps only the fingerprints.
    if (text.length >= LARGE_PASTE) sendEvent("paste", { file: name, chars: text.length, lines: text.split("\n").length, text: text.slice(0, 200000) });
  }
  if (interview) {
    var leftAt = null;
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) leftAt = Date.now();
      else if (leftAt) {
        var seconds = Math.round((Date.now() - leftAt) / 1000);
        leftAt = null;
        if (seconds >= 2) sendEvent("focus_lost", { seconds: seconds });
      }
    });
    window.addEventListener("blur", function () { if (!leftAt) leftAt = Date.now(); });
    window.addEventListener("focus", function () {
      if (leftAt && !document.hidden) {
        var seconds = Math.round((Date.now() - leftAt) / 1000);
        leftAt = null;
        if (seconds >= 2) sendEvent("focus_lost", { seconds: seconds });
      }
    });
  }
})();
