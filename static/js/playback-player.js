// Keystroke playback on the interview page (templates/review/_player.html): replays the recorded CodeMirror
// change sets in read-only editors. Play at 1× to 32×, idle stretches skipped (each gap longer than
// IDLE_GAP_MS plays as SKIPPED_TO_MS), markers for pastes, time away, Runs and Submits with their
// verdicts, notes and messages (each a button that jumps there), and a line diff of the shown file
// against the starter or the previous Run.
(function () {
  "use strict";
  var root = document.getElementById("keystroke-player");
  if (!root || !window.DojoEditor || !window.fetch) return;
  var IDLE_GAP_MS = 2000, SKIPPED_TO_MS = 400, CHECKPOINT_EVERY = 200, MAX_DIFF_LINES = 2000;
  var part = function (name) { return root.querySelector('[data-player="' + name + '"]'); };

  function clock(ms) {
    var s = Math.floor(ms / 1000);
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    return "+" + (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
  }

  fetch(root.dataset.src, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(start)
    .catch(function () {});

  function start(data) {
    root.hidden = false;
    var steps = data.steps || [];
    if (!steps.length && !(data.markers || []).length) {
      root.querySelector(".player-empty").hidden = false;
      ["controls", "time"].forEach(function (c) { root.querySelector(".player-" + c).hidden = true; });
      return;
    }
    var lf = function (text) { return String(text).replace(/\r\n/g, "\n"); };
    Object.keys(data.files).forEach(function (name) { data.files[name] = lf(data.files[name]); });
    steps.forEach(function (s) { if (s[2] === "text") s[3] = lf(s[3]); });
    (data.runs || []).forEach(function (r) { Object.keys(r.files).forEach(function (n) { r.files[n] = lf(r.files[n]); }); });
    var duration = Math.max(data.duration_ms || 0, steps.length ? steps[steps.length - 1][0] : 0);
    var names = Object.keys(data.files);
    steps.forEach(function (s) { if (names.indexOf(s[1]) === -1) { names.push(s[1]); data.files[s[1]] = ""; } });
    var texts = {}, index = 0, now = 0, playing = false, chosenFile = null, lastFile = names[0], lastLine = 1;
    var checkpoints = [{ index: 0, texts: Object.assign({}, data.files) }];

    function applyStep(step) {
      var file = step[1], before = texts[file] || "";
      try {
        texts[file] = step[2] === "text" ? step[3] : window.DojoEditor.applyChanges(before, step[3]);
      } catch (error) { return; } // a step that does not fit is skipped (the server checked them all)
      var after = texts[file];
      if (after === before) return; // a save of the same text: nothing moved
      lastFile = file;
      var at = 0;
      while (at < before.length && at < after.length && before.charCodeAt(at) === after.charCodeAt(at)) at++;
      lastLine = after.slice(0, at).split("\n").length;
    }
    // Checkpoints of every file's text, so a jump back does not replay from the start.
    texts = Object.assign({}, data.files);
    steps.forEach(function (step, i) {
      applyStep(step);
      if ((i + 1) % CHECKPOINT_EVERY === 0) checkpoints.push({ index: i + 1, texts: Object.assign({}, texts) });
    });
    texts = Object.assign({}, data.files);
    lastFile = names[0];

    // ---- Editors, one per file ----
    var editors = {}, buttons = {};
    names.forEach(function (name) {
      var box = document.createElement("div");
      box.hidden = true;
      part("editor").appendChild(box);
      editors[name] = { box: box, editor: window.DojoEditor.create({
        parent: box, doc: data.files[name], fileName: name, readOnly: true, label: "Playback: " + name }) };
      editors[name].editor.view.scrollDOM.tabIndex = 0; // scrollable: reachable by keyboard
      editors[name].editor.view.scrollDOM.setAttribute("aria-label", "Scroll the playback of " + name);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "button button-small";
      button.textContent = name;
      button.addEventListener("click", function () { chosenFile = name; render(); });
      part("files").appendChild(button);
      buttons[name] = button;
    });

    function seek(t) {
      t = Math.max(0, Math.min(duration, t));
      if (t < now) {
        var cp = checkpoints[0];
        checkpoints.forEach(function (c) { if (c.index === 0 || steps[c.index - 1][0] <= t) cp = c; });
        index = cp.index;
        texts = Object.assign({}, cp.texts);
      }
      while (index < steps.length && steps[index][0] <= t) { applyStep(steps[index]); index += 1; }
      now = t;
      render();
    }

    function render() {
      var shown = chosenFile || lastFile;
      names.forEach(function (name) {
        editors[name].box.hidden = name !== shown;
        buttons[name].setAttribute("aria-pressed", name === shown ? "true" : "false");
        var editor = editors[name].editor, text = texts[name] || "";
        if (editor.getValue() !== text) {
          editor.view.dispatch({ changes: { from: 0, to: editor.view.state.doc.length, insert: text } });
        }
      });
      var editor = editors[shown].editor;
      if (shown === lastFile && lastLine) { editor.markLine(lastLine); editor.revealLine(lastLine); }
      else editor.markLine(null);
      part("position").value = String(now);
      part("position").setAttribute("aria-valuetext", clock(now) + " of " + clock(duration));
      part("now").textContent = clock(now) + " / " + clock(duration);
      var passed = (data.markers || []).filter(function (m) { return m.t <= now; });
      part("where").textContent = passed.length ? "Last: " + clock(passed[passed.length - 1].t) + " " + passed[passed.length - 1].label : "";
      showDiff(shown);
    }

    // ---- Play ----
    var playButton = part("play"), speed = part("speed"), skip = part("skip"), frame = null, wall = 0;
    function nextMoment(t) {
      var next = index < steps.length ? steps[index][0] : duration;
      (data.markers || []).forEach(function (m) { if (m.t > t && m.t < next) next = m.t; });
      return next;
    }
    function tick(time) {
      if (!playing) return;
      var dt = wall ? time - wall : 0;
      wall = time;
      var t = now + dt * Number(speed.value);
      if (skip.checked && nextMoment(now) - now > IDLE_GAP_MS) t = Math.max(t, nextMoment(now) - SKIPPED_TO_MS);
      seek(t);
      if (now >= duration) { setPlaying(false); return; }
      frame = requestAnimationFrame(tick);
    }
    function setPlaying(on) {
      playing = on;
      playButton.textContent = on ? "Pause" : "Play";
      wall = 0;
      if (on) { if (now >= duration) seek(0); frame = requestAnimationFrame(tick); }
      else if (frame) cancelAnimationFrame(frame);
    }
    playButton.addEventListener("click", function () { setPlaying(!playing); });
    part("position").max = String(duration);
    part("position").addEventListener("input", function () { setPlaying(false); seek(Number(part("position").value)); });

    // ---- Markers: ticks on the track, and a list of buttons that jump there ----
    var markers = data.markers || [];
    part("marker-count").textContent = String(markers.length);
    markers.forEach(function (m) {
      var tickMark = document.createElement("span");
      tickMark.className = "player-tick player-tick-" + m.kind;
      tickMark.style.left = (duration ? (100 * m.t / duration) : 0) + "%";
      tickMark.title = clock(m.t) + " " + m.label;
      part("track").appendChild(tickMark);
      var item = document.createElement("li");
      var jump = document.createElement("button");
      jump.type = "button";
      jump.className = "button-link player-marker player-marker-" + m.kind;
      jump.textContent = clock(m.t) + " " + m.label;
      jump.addEventListener("click", function () { setPlaying(false); seek(m.t); });
      item.appendChild(jump);
      part("markers").appendChild(item);
    });

    // ---- Diff against the starter or the previous Run ----
    var compare = part("compare");
    compare.addEventListener("change", render);
    function showDiff(name) {
      var box = part("diff");
      if (!compare.value) { box.hidden = true; return; }
      var base = null, title = "";
      if (compare.value === "starter") { base = data.files[name] || ""; title = "the starter"; }
      else {
        var runs = (data.runs || []).filter(function (r) { return r.t <= now && r.kind === "run"; });
        if (runs.length) { var run = runs[runs.length - 1]; base = run.files[name] || ""; title = run.label; }
      }
      box.hidden = false;
      box.textContent = "";
      var heading = document.createElement("p");
      heading.className = "small";
      if (base === null) { heading.textContent = "No Run before this moment."; box.appendChild(heading); return; }
      heading.textContent = name + " at " + clock(now) + " against " + title + ":";
      box.appendChild(heading);
      box.appendChild(diffTable(base, texts[name] || ""));
    }
    function diffTable(before, after) {
      var a = before.split("\n"), b = after.split("\n");
      var box = document.createElement("pre");
      box.className = "player-diff-lines";
      if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) {
        box.textContent = "Too long to compare here.";
        return box;
      }
      // Longest common subsequence of lines; the changed lines are shown, "−" removed and "+" added.
      var n = a.length, m = b.length, lcs = [];
      for (var i = 0; i <= n; i++) lcs.push(new Uint16Array(m + 1));
      for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) {
        lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
      var changed = 0;
      function line(sign, text, cls) {
        var span = document.createElement("span");
        span.className = cls;
        span.textContent = sign + " " + text + "\n";
        box.appendChild(span);
        changed++;
      }
      i = 0; j = 0;
      while (i < n || j < m) {
        if (i < n && j < m && a[i] === b[j]) { i++; j++; continue; } // unchanged lines are left out
        if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) { line("+", b[j], "diff-add"); j++; }
        else { line("−", a[i], "diff-del"); i++; }
      }
      if (!changed) box.textContent = "No differences.";
      return box;
    }

    seek(0);
  }
})();
