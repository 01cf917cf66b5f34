// The replay of a finished browser run (templates/replay.html): one frame at a time, chosen
// with a slider (arrow keys, Home and End move it), Previous / Next step, or Play. Without this
// script every frame shows, one under the other.
"use strict";

(function () {
  var PLAY_EVERY = 1500;  // milliseconds per frame while playing

  function setUp(player) {
    if (player.dataset.ready) { return; }
    player.dataset.ready = "1";
    var frames = player.querySelectorAll(".replay-frame");
    var slider = player.querySelector("input[type=range]");
    var at = player.querySelector("output");
    var play = player.querySelector("[data-replay-play]");
    var controls = player.querySelector(".replay-controls");
    var timer = null;
    if (!frames.length || !slider) { return; }
    controls.hidden = false;
    player.classList.add("one-at-a-time");

    function show(index) {
      var current = Math.max(1, Math.min(frames.length, index));
      frames.forEach(function (frame, position) { frame.hidden = position + 1 !== current; });
      slider.value = String(current);
      var words = frames[current - 1].dataset.title || "";
      slider.setAttribute("aria-valuetext", "Frame " + current + " of " + frames.length + ": " + words);
      at.textContent = current + " of " + frames.length;
      if (current === frames.length) { stop(); }
    }
    function stop() {
      if (timer) { window.clearInterval(timer); timer = null; }
      play.setAttribute("aria-pressed", "false");
      play.textContent = "Play";
    }
    slider.addEventListener("input", function () { stop(); show(Number(slider.value)); });
    player.addEventListener("click", function (event) {
      var move = event.target.closest && event.target.closest("[data-replay-move]");
      if (move) {
        stop();
        show(Number(slider.value) + Number(move.getAttribute("data-replay-move")));
      } else if (event.target.closest && event.target.closest("[data-replay-play]")) {
        if (timer) { stop(); return; }
        if (Number(slider.value) === frames.length) { show(1); }
        play.setAttribute("aria-pressed", "true");
        play.textContent = "Pause";
        timer = window.setInterval(function () { show(Number(slider.value) + 1); }, PLAY_EVERY);
      }
    });
    show(1);
  }

  function setUpAll(root) {
    (root.querySelectorAll ? root : document).querySelectorAll("[data-replay]").forEach(setUp);
    if (root.matches && root.matches("[data-replay]")) { setUp(root); }
  }
  document.addEventListener("DOMContentLoaded", function () {
    setUpAll(document);
    if (window.htmx) { window.htmx.onLoad(setUpAll); }
  });
})();
