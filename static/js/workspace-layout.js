// The workspace's room to work: what the page looks like, never what it does.
//
//   * IDE (80rem and wider): the splits between the side pane, the editor and the output column drag (or take
//     the arrow keys when focused), and so does the split between Results and the scratch console; "Hide brief"
//     folds the side pane away; "Expand results" gives Results most of the width and the whole column height,
//     so the loss curves and the Cache agreement charts fit whole.
//   * Every editor wraps long lines unless "Wrap lines" is switched off: nothing scrolls sideways under the
//     line numbers by default.
//   * Phones (below 48rem): the sections become tabs (Brief, Code, Results, Notes, Hints, History, Console),
//     one shown at a time; Run and Submit stay fixed at the bottom (workspace.css), and a Run or Submit
//     shows Results.
//
// Each choice is remembered per user in this browser (localStorage, keyed by the user's id). Without script the
// page keeps its plain layout: the splits and buttons stay hidden and the section links jump down the page.
(function () {
  "use strict";

  var root = document.getElementById("workspace");
  if (!root) return;
  var grid = document.getElementById("ws-grid");
  var output = document.getElementById("ws-output");
  var bar = document.getElementById("layout-bar");
  var sideButton = document.getElementById("toggle-side");
  var expandButton = document.getElementById("expand-results");
  var resetButton = document.getElementById("reset-layout");
  var wrapButton = document.getElementById("wrap-toggle");
  var splits = Array.prototype.slice.call(root.querySelectorAll(".ws-split"));
  var sectionNav = document.getElementById("section-tabs");
  var sectionLinks = sectionNav ? Array.prototype.slice.call(sectionNav.querySelectorAll("a[data-section]")) : [];
  var ide = window.matchMedia("(min-width: 80rem)");
  var phone = window.matchMedia("(max-width: 48rem)");
  var KEY = "dojo-workspace-layout:" + (root.dataset.user || "anonymous");
  var STEP_PX = 24;
  var STEP_ROWS = 0.05;

  // ---- Remembered choices ----
  function load() {
    try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { return {}; }
  }
  var state = load();
  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) { /* private mode: not remembered */ }
  }

  function clamp(value, low, high) { return Math.max(low, Math.min(high, value)); }
  function rem(n) { return n * parseFloat(getComputedStyle(document.documentElement).fontSize || "16"); }

  // Limits of each split, from the grid's current width/height.
  function limits(kind) {
    if (kind === "rows") return { low: 0.15, high: 0.9 };
    var width = grid.getBoundingClientRect().width;
    if (kind === "side") return { low: rem(12), high: Math.max(rem(12), width * 0.45) };
    return { low: rem(20), high: Math.max(rem(20), width * 0.72) };
  }

  // ---- Applying the state ----
  function applyIde() {
    var on = ide.matches;
    if (bar) bar.hidden = !on;
    splits.forEach(function (split) { split.hidden = !on; });
    var sideHidden = on && !!state.sideHidden;
    var expanded = on && !!state.expanded;
    root.classList.toggle("side-hidden", sideHidden || expanded);
    root.classList.toggle("results-expanded", expanded);
    grid.style.setProperty("--side-w", state.side ? state.side + "px" : "");
    grid.style.setProperty("--out-w", state.out ? state.out + "px" : "");
    if (state.rows) {
      output.style.setProperty("--results-fr", state.rows + "fr");
      output.style.setProperty("--console-fr", (1 - state.rows) + "fr");
    } else {
      output.style.removeProperty("--results-fr");
      output.style.removeProperty("--console-fr");
    }
    if (sideButton) {
      sideButton.setAttribute("aria-expanded", sideHidden || expanded ? "false" : "true");
      sideButton.textContent = sideHidden || expanded ? "Show brief" : "Hide brief";
      sideButton.disabled = expanded;
    }
    if (expandButton) expandButton.setAttribute("aria-pressed", expanded ? "true" : "false");
    splits.forEach(describeSplit);
    measureEditors();
  }

  function describeSplit(split) {
    var kind = split.dataset.split;
    var range = limits(kind);
    var now;
    if (kind === "rows") {
      now = Math.round(100 * (state.rows || 0.6));
      split.setAttribute("aria-valuemin", String(Math.round(range.low * 100)));
      split.setAttribute("aria-valuemax", String(Math.round(range.high * 100)));
      split.setAttribute("aria-valuetext", now + "% of the column for Results");
    } else {
      var pane = kind === "side" ? document.getElementById("ws-side") : output;
      now = Math.round(state[kind] || pane.getBoundingClientRect().width);
      split.setAttribute("aria-valuemin", String(Math.round(range.low)));
      split.setAttribute("aria-valuemax", String(Math.round(range.high)));
      split.setAttribute("aria-valuetext", now + " pixels wide");
    }
    split.setAttribute("aria-valuenow", String(now));
  }

  function measureEditors() {
    var editors = window.dojoEditors || {};
    Object.keys(editors).forEach(function (name) { if (editors[name].view) editors[name].view.requestMeasure(); });
  }

  // ---- Dragging and keys on the splits ----
  function setFromPointer(kind, event) {
    var box = (kind === "rows" ? output : grid).getBoundingClientRect();
    var range = limits(kind);
    if (kind === "side") state.side = Math.round(clamp(event.clientX - box.left, range.low, range.high));
    else if (kind === "output") state.out = Math.round(clamp(box.right - event.clientX, range.low, range.high));
    else state.rows = Math.round(100 * clamp((event.clientY - box.top) / box.height, range.low, range.high)) / 100;
    applyIde();
  }

  splits.forEach(function (split) {
    var kind = split.dataset.split;
    split.addEventListener("pointerdown", function (event) {
      if (event.button !== 0) return;
      event.preventDefault();
      split.setPointerCapture(event.pointerId);
      split.classList.add("dragging");
      root.classList.add("resizing");
    });
    split.addEventListener("pointermove", function (event) {
      if (split.hasPointerCapture && split.hasPointerCapture(event.pointerId)) setFromPointer(kind, event);
    });
    function end(event) {
      if (!split.classList.contains("dragging")) return;
      if (split.releasePointerCapture && split.hasPointerCapture(event.pointerId)) split.releasePointerCapture(event.pointerId);
      split.classList.remove("dragging");
      root.classList.remove("resizing");
      save();
    }
    split.addEventListener("pointerup", end);
    split.addEventListener("pointercancel", end);
    split.addEventListener("keydown", function (event) {
      var range = limits(kind);
      var grow = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (!grow) return;
      event.preventDefault();
      if (kind === "rows") {
        state.rows = Math.round(100 * clamp((state.rows || 0.6) + grow * STEP_ROWS, range.low, range.high)) / 100;
      } else {
        var current = Number(split.getAttribute("aria-valuenow")) || range.low;
        // The side pane grows to the right; the output column grows to the left.
        state[kind] = Math.round(clamp(current + (kind === "side" ? grow : -grow) * STEP_PX, range.low, range.high));
      }
      applyIde();
      save();
    });
  });

  if (sideButton) {
    sideButton.addEventListener("click", function () {
      state.sideHidden = !state.sideHidden;
      save();
      applyIde();
    });
  }
  if (expandButton) {
    expandButton.addEventListener("click", function () {
      state.expanded = !state.expanded;
      save();
      applyIde();
    });
  }
  if (resetButton) {
    resetButton.addEventListener("click", function () {
      var keepWrap = state.wrap;
      state = { wrap: keepWrap };
      save();
      applyIde();
    });
  }

  // ---- Wrapping long lines (on unless switched off) ----
  function wrapOn() { return state.wrap !== false; }
  function applyWrap() {
    var editors = window.dojoEditors || {};
    Object.keys(editors).forEach(function (name) { if (editors[name].setWrap) editors[name].setWrap(wrapOn()); });
    if (wrapButton) wrapButton.setAttribute("aria-pressed", wrapOn() ? "true" : "false");
  }
  if (wrapButton) {
    wrapButton.addEventListener("click", function () {
      state.wrap = !wrapOn();
      save();
      applyWrap();
    });
  }

  // ---- Phones: sections as tabs ----
  var SECTIONS = { brief: "brief", editor: "editor", results: "results", notes: "notes", hints: "hints",
                   history: "history", console: "console" };
  function sectionElement(name) { return document.getElementById(SECTIONS[name]); }

  function showSection(name, remember) {
    if (!SECTIONS[name]) return;
    Object.keys(SECTIONS).forEach(function (other) {
      var element = sectionElement(other);
      if (element) element.classList.toggle("section-off", phone.matches && other !== name);
    });
    sectionLinks.forEach(function (link) {
      if (link.dataset.section === name && phone.matches) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    });
    if (remember) {
      state.section = name;
      save();
    }
    if (name === "editor") measureEditors();
  }

  function applyPhone() {
    root.classList.toggle("phone", phone.matches);
    if (phone.matches) {
      var first = state.section || (root.dataset.fresh === "yes" ? "brief" : "editor");
      showSection(first, false);
    } else {
      Object.keys(SECTIONS).forEach(function (name) {
        var element = sectionElement(name);
        if (element) element.classList.remove("section-off");
      });
      sectionLinks.forEach(function (link) { link.removeAttribute("aria-current"); });
    }
  }

  sectionLinks.forEach(function (link) {
    link.addEventListener("click", function (event) {
      if (!phone.matches) return;
      event.preventDefault();
      showSection(link.dataset.section, true);
      window.scrollTo(0, 0);
    });
  });
  // Run and Submit show Results; Run scratch the console; a link to an error's line, the code; other links
  // inside the page (#notes in the next steps after a pass), their section.
  root.addEventListener("click", function (event) {
    if (!phone.matches || !event.target.closest) return;
    var button = event.target.closest("button[data-panel]");
    if (button) { showSection(button.dataset.panel === "console" ? "console" : "results", true); return; }
    if (event.target.closest("a.goto-line")) { showSection("editor", true); return; }
    if (event.target.closest("a[data-panel-url]")) { showSection("results", true); return; }
    var link = event.target.closest("a[href^='#']");
    var name = link && link.getAttribute("href").slice(1);
    if (name && SECTIONS[name] && !link.closest("#section-tabs")) showSection(name, true);
  }, true);

  applyWrap();
  applyIde();
  applyPhone();
  ide.addEventListener("change", applyIde);
  phone.addEventListener("change", applyPhone);
  window.addEventListener("resize", function () { if (ide.matches) splits.forEach(describeSplit); });
})();
