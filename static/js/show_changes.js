// Judgment screens of a campaign that shows changes: the d key (or the button) shows or hides each
// correction's word diff against the original (static/js/word_diff.js, as the rewrite pages mark
// them). The choice is remembered in localStorage, so the next screen opens the same way.
(function () {
  "use strict";
  var KEY = "gecArena.showChanges";
  var button = document.getElementById("show-changes");
  var source = document.getElementById("source-text");
  var diffs = Array.prototype.slice.call(document.querySelectorAll(".candidate-diff"));
  if (!button || !source || !window.gecWordDiff) return;

  function remembered() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
  }
  function remember(on) {
    try { window.localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* private mode: this screen only */ }
  }

  function fill(el) {
    if (el.dataset.filled) return;
    window.gecWordDiff.wordDiff(source.textContent, el.dataset.text).forEach(function (part) {
      var node = part[0] === "same" ? document.createElement("span") : document.createElement(part[0]);
      node.textContent = part[1];
      el.appendChild(node);
      el.appendChild(document.createTextNode(" "));
    });
    el.dataset.filled = "1";
  }

  function show(on) {
    diffs.forEach(function (el) { if (on) fill(el); el.hidden = !on; });
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Hide changes" : "Show changes";
  }

  function toggle() {
    var on = button.getAttribute("aria-pressed") !== "true";
    remember(on);
    show(on);
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" && target.type !== "range" && target.type !== "radio" && target.type !== "checkbox"
      || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  button.addEventListener("click", toggle);
  document.addEventListener("keydown", function (event) {
    if (event.key !== "d" || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    event.preventDefault();
    toggle();
  });
  show(remembered());
})();
