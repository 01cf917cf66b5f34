// The run page's live view: while the reader has control of the run's browser (the controls
// say data-driving="true"), their clicks, wheel turns and keys on the screen, the text they
// send and Back / Forward / Reload go to the page through POST <run>/input, in order. The
// screen itself is an <img> fed by the server, and beside it a small stream says which tab is
// shown (URL, title, tab count) and who has control until when. Both are let go while the tab
// is hidden (nobody watching costs nothing), except while the reader has control: closing the
// page then ends the streams, which tells the server to give the browser back to the agent.
"use strict";

(function () {
  var section = document.getElementById("live-view");
  var screen = document.getElementById("screen");
  if (!section || !screen) { return; }
  var width = Number(section.dataset.viewportWidth);
  var height = Number(section.dataset.viewportHeight);
  var BUTTONS = ["MOUSE_BUTTON_LEFT", "MOUSE_BUTTON_MIDDLE", "MOUSE_BUTTON_RIGHT"];
  var queue = [];
  var sending = false;
  var lastMove = 0;

  function driving() {
    var controls = document.getElementById("live-controls");
    return Boolean(controls) && controls.dataset.driving === "true";
  }

  function say(text) {
    var status = document.getElementById("screen-status");
    if (status) { status.textContent = text; }
  }

  // One request at a time, so the page gets the events in the order they happened.
  function send(events) {
    Array.prototype.push.apply(queue, events);
    flush();
  }

  function flush() {
    if (sending || queue.length === 0) { return; }
    sending = true;
    var batch = queue.splice(0, 200);
    fetch(section.dataset.input, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": section.dataset.csrf },
      body: JSON.stringify({ events: batch })
    }).then(function (response) {
      if (response.ok) { say(""); return null; }
      return response.json().then(function (body) {
        say(body.error ? body.error.message : "The input was refused.");
      });
    }).catch(function () {
      say("The input could not be sent: is the connection lost?");
    }).then(function () {
      sending = false;
      flush();
    });
  }

  function modifiers(event) {
    return (event.altKey ? 1 : 0) | (event.ctrlKey ? 2 : 0) | (event.metaKey ? 4 : 0) |
      (event.shiftKey ? 8 : 0);
  }

  // Where on the page's viewport (CSS pixels) the pointer is, whatever size the image is shown.
  function point(event) {
    var box = screen.getBoundingClientRect();
    return {
      x: Math.max(0, Math.min(width, (event.clientX - box.left) * width / box.width)),
      y: Math.max(0, Math.min(height, (event.clientY - box.top) * height / box.height))
    };
  }

  function mouse(action, event, extra) {
    var at = point(event);
    var body = { action: action, x: at.x, y: at.y, modifiers: modifiers(event) };
    return { mouse: Object.assign(body, extra || {}) };
  }

  screen.addEventListener("mousedown", function (event) {
    if (!driving()) { return; }
    event.preventDefault();
    send([mouse("MOUSE_ACTION_PRESS", event,
      { button: BUTTONS[event.button] || BUTTONS[0], clickCount: event.detail || 1 })]);
    screen.focus({ preventScroll: true });  // keys go to the page from now on
  });
  screen.addEventListener("mouseup", function (event) {
    if (!driving()) { return; }
    event.preventDefault();
    send([mouse("MOUSE_ACTION_RELEASE", event,
      { button: BUTTONS[event.button] || BUTTONS[0], clickCount: event.detail || 1 })]);
  });
  screen.addEventListener("mousemove", function (event) {
    if (!driving() || Date.now() - lastMove < 40) { return; }  // a drag, not a flood
    lastMove = Date.now();
    var held = event.buttons & 1 ? BUTTONS[0] : event.buttons & 2 ? BUTTONS[2] : undefined;
    send([mouse("MOUSE_ACTION_MOVE", event, held ? { button: held } : {})]);
  });
  screen.addEventListener("wheel", function (event) {
    if (!driving()) { return; }
    event.preventDefault();
    var at = point(event);
    send([{ wheel: { x: at.x, y: at.y, deltaX: event.deltaX, deltaY: event.deltaY,
      modifiers: modifiers(event) } }]);
  }, { passive: false });
  screen.addEventListener("contextmenu", function (event) {
    if (driving()) { event.preventDefault(); }
  });
  screen.addEventListener("dragstart", function (event) { event.preventDefault(); });

  function key(action, event) {
    return { key: { action: action, key: event.key, code: event.code, modifiers: modifiers(event) } };
  }
  // Tab is never kept: it moves the focus out of the screen, so the keyboard is never trapped.
  screen.addEventListener("keydown", function (event) {
    if (!driving() || event.key === "Tab") { return; }
    event.preventDefault();
    send([key("KEY_ACTION_DOWN", event)]);
  });
  screen.addEventListener("keyup", function (event) {
    if (!driving() || event.key === "Tab") { return; }
    event.preventDefault();
    send([key("KEY_ACTION_UP", event)]);
  });

  // The controls are swapped by the live stream: listen on the document for their buttons.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-send-key], button[data-navigate]");
    if (!button || !driving()) { return; }
    var navigate = button.getAttribute("data-navigate");
    if (navigate) {
      send([{ navigate: { action: navigate } }]);
      return;
    }
    var name = button.getAttribute("data-send-key");
    send([{ key: { action: "KEY_ACTION_DOWN", key: name, code: name } },
      { key: { action: "KEY_ACTION_UP", key: name, code: name } }]);
  });
  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest("form[data-send-text]");
    if (!form) { return; }
    event.preventDefault();
    var field = form.querySelector("input");
    if (driving() && field && field.value) {
      send([{ text: { text: field.value } }]);
      field.value = "";
    }
  });

  // What is around the screen: the tab shown, and who has control until when.
  var info = null;
  function text(id, value) {
    var element = document.getElementById(id);
    if (element) { element.textContent = value; }
    return element;
  }
  function showPage(page) {
    text("screen-title", page.title || "(untitled)");
    text("screen-url", page.url || "");
    var tabs = text("screen-tabs", "Tab " + page.tab + " of " + page.tabs);
    if (tabs) {
      tabs.hidden = !(page.tabs > 1);
      tabs.title = page.tabs > 1 ? "The run's browser has " + page.tabs + " tabs open; this is the one shown" : "";
    }
  }
  function showControl(control) {
    if (!control.expires) { return; }
    var moment = new Date(control.expires);
    document.querySelectorAll("#live-controls time.control-until").forEach(function (element) {
      element.setAttribute("datetime", control.expires);
      element.textContent = isNaN(moment.getTime()) ? control.expires : moment.toLocaleTimeString();
      element.title = control.expires;
    });
  }
  function openInfo() {
    if (info || !section.dataset.info || !window.EventSource) { return; }
    info = new EventSource(section.dataset.info);
    info.addEventListener("page", function (event) { showPage(JSON.parse(event.data)); });
    info.addEventListener("control", function (event) { showControl(JSON.parse(event.data)); });
  }
  function closeInfo() {
    if (info) { info.close(); info = null; }
  }

  // The stream of frames: started once the page has loaded (it never ends loading itself), let
  // go while nobody can see it (unless the reader has control: that keeps it), back when the
  // tab is shown again, and reconnected when it breaks while the run is still active.
  function watch() {
    if (!screen.getAttribute("src")) { screen.setAttribute("src", section.dataset.screen); }
    openInfo();
  }
  function unwatch() {
    screen.removeAttribute("src");
    closeInfo();
  }
  window.addEventListener("load", function () {
    if (!document.hidden) { watch(); }
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && !document.hidden) { unwatch(); watch(); }  // back from the cache
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      watch();
    } else if (!driving()) {
      unwatch();
    }
  });
  screen.addEventListener("error", function () {
    var controls = document.getElementById("live-controls");
    if (controls && controls.classList.contains("live-ended")) { return; }
    say("The live view was interrupted; reconnecting…");
    window.setTimeout(function () {
      if (!document.hidden || driving()) {
        screen.setAttribute("src", section.dataset.screen + "&retry=" + Date.now());
      }
    }, 2000);
  });
  document.addEventListener("htmx:sseClose", function () { closeInfo(); });
})();
