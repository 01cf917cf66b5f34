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

// Times are written in UTC by the server; show them in the reader's own time zone too.
function localTimes(root) {
  root.querySelectorAll("time[datetime]").forEach(function (element) {
    if (element.dataset.local || !element.getAttribute("datetime")) { return; }
    var moment = new Date(element.getAttribute("datetime"));
    if (isNaN(moment.getTime())) { return; }
    element.dataset.local = "1";
    element.title = element.textContent;
    element.textContent = moment.toLocaleString();
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
  if (window.htmx) { window.htmx.onLoad(localTimes); }
});
