// The console's only script of its own: small glue around htmx (no framework, no inline code).
"use strict";

// A message of the live stream that the page already has (a new EventSource after an error
// starts again from the page's cursor) is dropped: its rows and the parts they changed are
// already on the page.
document.addEventListener("htmx:sseBeforeMessage", function (event) {
  var message = event.detail;
  if (message && message.type === "timeline" && message.lastEventId &&
      document.getElementById("ev-" + message.lastEventId)) {
    event.preventDefault();
  }
});

// The page's cursor: a new EventSource (htmx opens one when the browser gave the last one up,
// e.g. after a 502 or 503 from a proxy) sends no Last-Event-ID, so the connect URL itself says
// to resume after the last event the page shows instead of sending the whole run again.
document.addEventListener("htmx:sseMessage", function (event) {
  var message = event.detail;
  var live = event.target.closest ? event.target.closest("[sse-connect]") : null;
  if (live && message && message.lastEventId && /^[0-9]+$/.test(message.lastEventId)) {
    var url = live.getAttribute("sse-connect").split("?")[0];
    live.setAttribute("sse-connect", url + "?after=" + message.lastEventId);
  }
});

// The runs page refreshes its table every 5 s (two store queries each time): not while the tab
// is hidden, where nobody reads it (an on-call laptop keeps many tabs open for hours). The next
// refresh after the tab is shown again brings it up to date.
document.addEventListener("htmx:beforeRequest", function (event) {
  var source = event.detail && event.detail.elt;
  if (document.hidden && source && source.id === "runs") { event.preventDefault(); }
});

// Says whether the run page is live: the on-call person must know when it is not.
function liveStatus(text, state) {
  var status = document.getElementById("live-status");
  if (status) { status.textContent = text; status.dataset.state = state; }
}
document.addEventListener("htmx:sseOpen", function () { liveStatus("Live: updates arrive as they happen.", "live"); });
document.addEventListener("htmx:sseError", function () { liveStatus("Connection lost: reconnecting… (if this lasts, reload the page; you may have to sign in again)", "lost"); });
document.addEventListener("htmx:sseClose", function (event) {
  var status = document.getElementById("live-status");
  if (status && status.dataset.state === "signed-out") { return; }  // the server said why
  if (event.detail && event.detail.type === "message") {
    liveStatus("The run has ended: nothing more will change.", "ended");
  }
});

// Times are written in UTC by the server; show them in the reader's own time zone, or, marked
// "relative", as "3 min ago" with the exact time (local and UTC) on hover.
function relative(moment) {
  var ago = Math.round((Date.now() - moment.getTime()) / 1000);
  var seconds = Math.abs(ago);
  if (seconds < 45) { return "just now"; }
  var said = function (text) { return ago < 0 ? "in " + text : text + " ago"; };  // future: "in …"
  var minutes = Math.round(seconds / 60);
  if (minutes < 60) { return said(minutes + " min"); }
  var hours = Math.round(minutes / 60);
  if (hours < 24) { return said(hours + " h"); }
  var days = Math.round(hours / 24);
  return days < 30 ? said(days + (days === 1 ? " day" : " days")) : moment.toLocaleDateString();
}
function localTimes(root) {
  root.querySelectorAll("time[datetime]").forEach(function (element) {
    if (!element.getAttribute("datetime")) { return; }
    var moment = new Date(element.getAttribute("datetime"));
    if (isNaN(moment.getTime())) { return; }
    if (!element.dataset.utc) { element.dataset.utc = element.textContent; }
    if (element.classList.contains("relative")) {
      element.textContent = relative(moment);
      element.title = moment.toLocaleString() + " (" + element.dataset.utc + ")";
    } else if (!element.dataset.local) {
      var clockOnly = element.classList.contains("clock-only");
      element.textContent = clockOnly ? moment.toLocaleTimeString() : moment.toLocaleString();
      element.title = element.dataset.utc;
    }
    element.dataset.local = "1";
  });
}

// How long a running run has run, kept current: "3 min 05 s" as the server writes it.
function duration(seconds) {
  if (seconds < 10) { return seconds.toFixed(1) + " s"; }
  var whole = Math.floor(seconds);
  if (whole < 60) { return whole + " s"; }
  var minutes = Math.floor(whole / 60);
  var rest = String(whole % 60).padStart(2, "0");
  if (minutes < 60) { return minutes + " min " + rest + " s"; }
  return Math.floor(minutes / 60) + " h " + String(minutes % 60).padStart(2, "0") + " min";
}
function tick() {
  document.querySelectorAll("[data-since]").forEach(function (element) {
    var since = new Date(element.dataset.since).getTime();
    if (!isNaN(since)) { element.textContent = duration(Math.max(0, (Date.now() - since) / 1000)); }
  });
}
window.setInterval(function () {
  if (document.hidden) { return; }
  tick();
  document.querySelectorAll("time.relative").forEach(function (element) {
    var moment = new Date(element.getAttribute("datetime"));
    if (!isNaN(moment.getTime())) { element.textContent = relative(moment); }
  });
}, 1000);

// A resumed live stream may send a step's heading the page already has: the first one stays.
function oneHeadingEach(root) {
  (root.querySelectorAll ? root : document).querySelectorAll("li.step-head").forEach(function (head) {
    var same = document.querySelectorAll('li.step-head[id="' + head.id + '"]');
    if (same.length > 1 && same[0] !== head) { head.remove(); }
  });
}

// A question the page re-asks (a website refused the values) comes back empty: what this
// person typed into its plain fields is filled in again, never a password. Kept in this page's
// memory only, by the field's element ref, for the questions of this run.
var typedAnswers = {};
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!form.matches || !form.matches(".question form.answer")) { return; }
  form.querySelectorAll("input[name^='field:'], textarea[name^='field:'], select[name^='field:']").forEach(function (field) {
    if (field.type === "password" || field.type === "checkbox" || field.type === "radio") { return; }
    if (field.value) { typedAnswers[field.name] = field.value; }
  });
});
function refill(root) {
  (root.querySelectorAll ? root : document).querySelectorAll(".question-pending form.answer").forEach(function (form) {
    Object.keys(typedAnswers).forEach(function (name) {
      var field = form.querySelector('[name="' + CSS.escape(name) + '"]');
      if (field && field.type !== "password" && !field.value) { field.value = typedAnswers[name]; }
    });
  });
}

// "Copy link" buttons copy the value of the field they name.
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) { return; }
  var field = document.querySelector(button.getAttribute("data-copy"));
  if (!field) { return; }
  field.select();
  var done = function () { button.textContent = "Copied"; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(done, function () {});
  } else {
    done();  // the text stays selected for the person to copy
  }
});

document.addEventListener("DOMContentLoaded", function () {
  localTimes(document);
  tick();
  if (window.htmx) {
    window.htmx.onLoad(function (root) {
      localTimes(root);
      oneHeadingEach(root);
      refill(root);
    });
  }
});
