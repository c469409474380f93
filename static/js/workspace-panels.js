// One owner for each results area of the workspace (#results-body, #console-body). Every request that would
// change the area goes through its Panel: Run, Submit and Run scratch, Cancel, History's "show", a newer
// attempt's "Show it", and the progress poll.
//
//   * User actions run one at a time, in the order they were clicked; the button stays disabled while its
//     own request is in flight, so a double-click sends one request.
//   * Starting an action drops the poll: it is aborted, and an answer that arrives anyway is ignored
//     (each poll carries the generation it was sent in; every action starts a new one). A poll answer is also
//     ignored unless it is the attempt still shown. So the area always ends on the newest attempt the user
//     asked for, and polling then continues from that attempt.
//   * Polls back off while nothing changes (MIN_DELAY_MS, growing to MAX_DELAY_MS, back to MIN_DELAY_MS on a
//     change) and send If-None-Match: a 304 changes nothing.
//   * An attempt waiting behind others (data-ahead > 0) is polled every WAITING_MIN_DELAY_MS or more, growing to
//     a second per attempt ahead (with two graders a place takes about that or more) and at most
//     WAITING_MAX_DELAY_MS: another attempt's verdict moves its "N ahead of yours", which is no progress of its
//     own, so it does not bring the poll back to MIN_DELAY_MS. Being next, starting, a new stage or training
//     step and the verdict do.
//   * Each answer names the newest attempt of the area's kinds in the workspace; a newer one than this tab
//     knows (started in another tab or on another device) is announced with a "Show it" button. Tabs of the
//     same browser also tell each other at once over a BroadcastChannel.
(function () {
  "use strict";

  var MIN_DELAY_MS = 400;
  var MAX_DELAY_MS = 3000;
  var WAITING_MIN_DELAY_MS = 2000;
  var WAITING_MAX_DELAY_MS = 10000;
  var WAITING_DELAY_PER_AHEAD_MS = 1000;
  var GROWTH = 1.5;
  var KIND_NAMES = { run: "run", submit: "submission", scratch: "scratch run" };
  // How the pages name an attempt: "Run 3", "Submit 4" (its number in this workspace, never its id).
  var KIND_TITLES = { run: "Run", submit: "Submit", scratch: "Scratch run" };

  // How many attempts wait ahead of the one shown (the fragment's data-ahead, see _panel_attrs.html).
  function ahead(element) {
    return (element && Number(element.dataset.ahead)) || 0;
  }

  function fragmentElement(text, id) {
    var template = document.createElement("template");
    template.innerHTML = text;
    return template.content.getElementById(id);
  }

  // options: name ("results" or "console"), bodyId, noticeId, csrf, channel (a BroadcastChannel or null),
  // onResponse(response) for every action's answer, onError(status, contentType, text).
  function Panel(options) {
    this.options = options;
    this.generation = 0;   // bumped by each user action; a poll from an older generation is stale
    this.queue = [];       // user actions waiting for the one in flight
    this.busy = false;     // a user action is in flight
    this.timer = null;
    this.pollAbort = null;
    this.delay = MIN_DELAY_MS;
    this.etag = null;      // the ETag of the last answer for etagUrl
    this.etagUrl = null;
    this.lastText = null;  // the last fragment swapped in (an identical 200 counts as "no change")
    this.known = 0;        // the newest attempt id this tab started, showed or was told about
    this.announced = 0;    // the attempt the "newer attempt" notice offers
    var body = this.body();
    if (body) this.known = Math.max(Number(body.dataset.attempt) || 0, Number(body.dataset.newest) || 0);
  }

  Panel.prototype.body = function () {
    return document.getElementById(this.options.bodyId);
  };

  // ---- User actions ----

  // spec: {url, method, body (FormData or null), button (disabled until the answer), starts (creates an attempt)}
  Panel.prototype.act = function (spec) {
    this.generation += 1;
    this.stopPolling();
    if (spec.button) spec.button.disabled = true;
    this.queue.push(spec);
    if (!this.busy) this.next();
  };

  Panel.prototype.next = function () {
    var self = this;
    var spec = this.queue.shift();
    if (!spec) {
      this.busy = false;
      this.adopt();
      return;
    }
    this.busy = true;
    fetch(spec.url, {
      method: spec.method,
      body: spec.body || null,
      headers: { "HX-Request": "true", "X-CSRF-Token": this.options.csrf },
      credentials: "same-origin",
      cache: "no-store",
    }).then(function (response) {
      return response.text().then(function (text) { self.answered(spec, response, text); });
    }).catch(function () {
      self.options.onError(0, "", "");
    }).then(function () {
      if (spec.button) spec.button.disabled = false;
      self.next();
    });
  };

  Panel.prototype.answered = function (spec, response, text) {
    this.options.onResponse(response);
    var retarget = response.headers.get("HX-Retarget");
    if (retarget) {  // a refusal: its message goes to the notice area, the panel stays as it was
      window.htmx.swap(retarget, text, { swapStyle: response.headers.get("HX-Reswap") || "innerHTML" });
      return;
    }
    var incoming = response.ok && !response.redirected ? fragmentElement(text, this.options.bodyId) : null;
    if (!incoming) {
      this.options.onError(response.status, response.headers.get("content-type") || "", text);
      return;
    }
    var id = Number(incoming.dataset.attempt) || 0;
    var before = this.known;
    this.swap(text);
    this.known = Math.max(this.known, id);
    if (spec.starts && id > before && this.options.channel) {
      this.options.channel.postMessage({
        panel: this.options.name, id: id, kind: incoming.dataset.kind, url: incoming.dataset.panelUrl,
        number: Number(incoming.dataset.number) || 0,
      });
    }
  };

  // Which <details> of an area are open, by their summary's text.
  function detailsState(body) {
    var state = {};
    if (body) {
      body.querySelectorAll("details > summary").forEach(function (summary) {
        state[summary.textContent.trim()] = summary.parentElement.open;
      });
    }
    return state;
  }

  Panel.prototype.swap = function (text) {
    var before = this.body();
    var attempt = before && before.dataset.attempt;
    var state = detailsState(before);
    window.htmx.swap(before, text, { swapStyle: "outerHTML", ignoreTitle: true });
    // The same attempt redrawn (its progress, its tips arriving) keeps the tables and logs the reader
    // opened or closed; another attempt starts as the server draws it.
    var after = this.body();
    if (after && attempt && after.dataset.attempt === attempt) {
      after.querySelectorAll("details > summary").forEach(function (summary) {
        var key = summary.textContent.trim();
        if (Object.prototype.hasOwnProperty.call(state, key)) summary.parentElement.open = state[key];
      });
    }
    this.lastText = text;
    this.delay = MIN_DELAY_MS;
  };

  // ---- Polling ----

  // Take up what the area shows now: announce a newer attempt, poll while this one is unfinished.
  Panel.prototype.adopt = function () {
    var body = this.body();
    if (!body) return;
    this.known = Math.max(this.known, Number(body.dataset.attempt) || 0);
    var newest = Number(body.dataset.newest) || 0;
    if (newest > this.known) {
      this.announce(newest, body.dataset.newestKind, body.dataset.newestUrl, Number(body.dataset.newestNumber) || 0);
    }
    else if (this.announced && this.announced <= this.known) this.clearNotice();
    if (body.dataset.poll === "yes" && !this.busy) this.schedule();
  };

  Panel.prototype.schedule = function () {
    var self = this;
    clearTimeout(this.timer);
    var delay = Math.max(this.bounds()[0], this.delay);
    this.timer = setTimeout(function () { self.poll(); }, document.hidden ? Math.max(MAX_DELAY_MS, delay) : delay);
  };

  Panel.prototype.stopPolling = function () {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.pollAbort) this.pollAbort.abort();
    this.pollAbort = null;
  };

  // The least and most delay for the attempt shown: one waiting behind others needs no fast polls.
  Panel.prototype.bounds = function () {
    var waiting = ahead(this.body());
    if (!waiting) return [MIN_DELAY_MS, MAX_DELAY_MS];
    var most = Math.min(WAITING_MAX_DELAY_MS, waiting * WAITING_DELAY_PER_AHEAD_MS);
    return [WAITING_MIN_DELAY_MS, Math.max(WAITING_MIN_DELAY_MS, most)];
  };

  Panel.prototype.grow = function () {
    var bounds = this.bounds();
    this.delay = Math.min(bounds[1], Math.round(Math.max(bounds[0], this.delay) * GROWTH));
  };

  Panel.prototype.backOff = function () {
    this.grow();
    this.schedule();
  };

  Panel.prototype.poll = function () {
    var self = this;
    var body = this.body();
    if (this.busy || !body || body.dataset.poll !== "yes" || !body.dataset.panelUrl) return;
    var url = body.dataset.panelUrl;
    var attempt = body.dataset.attempt;
    var generation = this.generation;
    var headers = { "HX-Request": "true" };
    if (this.etag && this.etagUrl === url) headers["If-None-Match"] = this.etag;
    var abort = new AbortController();
    this.pollAbort = abort;
    // no-store: the browser neither answers from its cache nor revalidates on its own, so a 304 reaches us.
    fetch(url, { headers: headers, credentials: "same-origin", cache: "no-store", signal: abort.signal })
      .then(function (response) {
        if (generation !== self.generation) return null;  // a user action started since: this answer is stale
        self.pollAbort = null;
        if (response.status === 304) {
          self.backOff();
          return null;
        }
        if (!response.ok || response.redirected) {
          // Signed out or the attempt is gone: stop. A server error: try again, slowly.
          if (response.status >= 500) {
            self.delay = MAX_DELAY_MS;
            self.schedule();
          }
          return null;
        }
        var etag = response.headers.get("ETag");
        return response.text().then(function (text) {
          if (generation !== self.generation) return;
          self.etag = etag;
          self.etagUrl = url;
          var incoming = fragmentElement(text, self.options.bodyId);
          if (!incoming || incoming.dataset.attempt !== attempt) return;  // not the attempt still shown
          if (text === self.lastText) {
            self.backOff();
            return;
          }
          var queueMoved = ahead(self.body()) > 0 && ahead(incoming) > 0;
          var delay = self.delay;
          self.swap(text);
          if (queueMoved) {  // only another attempt's verdict moved "N ahead of yours": keep backing off
            self.delay = delay;
            self.grow();
          }
          self.adopt();
        });
      })
      .catch(function (error) {
        if (error && error.name === "AbortError") return;
        if (generation !== self.generation) return;
        self.delay = MAX_DELAY_MS;  // offline for a moment: keep trying, slowly
        self.schedule();
      });
  };

  // The tab came back to the front: look again soon.
  Panel.prototype.wake = function () {
    var body = this.body();
    if (this.busy || !body || body.dataset.poll !== "yes") return;
    this.delay = MIN_DELAY_MS;
    this.schedule();
  };

  // ---- A newer attempt from elsewhere ----

  Panel.prototype.heard = function (message) {
    if (message && message.panel === this.options.name && message.id > this.known) {
      this.announce(message.id, message.kind, message.url, message.number || 0);
    }
  };

  Panel.prototype.announce = function (id, kind, url, number) {
    var self = this;
    var notice = document.getElementById(this.options.noticeId);
    if (!notice || !url || id === this.announced) return;
    this.announced = id;
    var text = document.createElement("p");
    var name = number ? ", " + (KIND_TITLES[kind] || "Attempt") + " " + number + "," : "";
    text.textContent = "A newer " + (KIND_NAMES[kind] || "attempt") + name +
      " was started in another tab or on another device. ";
    var show = document.createElement("button");
    show.type = "button";
    show.className = "button button-small";
    show.textContent = "Show it";
    show.addEventListener("click", function () {
      self.known = Math.max(self.known, id);
      self.clearNotice();
      self.act({ url: url, method: "GET", body: null, button: null, starts: false });
    });
    text.appendChild(show);
    notice.replaceChildren(text);
    notice.classList.add("alert", "alert-warn");
  };

  Panel.prototype.clearNotice = function () {
    var notice = document.getElementById(this.options.noticeId);
    this.announced = 0;
    if (!notice) return;
    notice.replaceChildren();
    notice.classList.remove("alert", "alert-warn");
  };

  window.DojoPanel = Panel;
})();
