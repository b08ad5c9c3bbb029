// PRWS screen: a slider counts as rated only once the judge has moved it
// (mouse, touch or keyboard); the form cannot be submitted before that.
// Issue 40: the positions (and "meaning changed" ticks) are kept in this tab's sessionStorage under
// the screen's opaque handle, so a reload of the same screen keeps them; the handle names the screen
// within this assignment only and says nothing of which screens are traps.
(function () {
  "use strict";
  var form = document.getElementById("prws-form");
  if (!form) return;
  var sliders = Array.prototype.slice.call(form.querySelectorAll(".prws-slider"));
  var ticks = Array.prototype.slice.call(form.querySelectorAll("input[type=checkbox][name^='changed-']"));
  var submit = document.getElementById("submit");
  var handle = form.querySelector("input[name=screen]");
  var key = handle && handle.value ? "prws-draft:" + handle.value : null;

  function update() {
    var unset = sliders.filter(function (s) { return s.classList.contains("unset"); }).length;
    submit.disabled = unset > 0;
    submit.textContent = unset > 0 ? "Submit (" + unset + " left to rate)" : "Submit";
  }

  function save() {
    if (!key) return;
    var draft = {};
    sliders.forEach(function (s) { if (!s.classList.contains("unset")) draft[s.dataset.target] = s.value; });
    ticks.forEach(function (t) { draft[t.name] = t.checked; });
    try { window.sessionStorage.setItem(key, JSON.stringify(draft)); } catch (e) { /* storage off: no draft */ }
  }

  function mark(slider) {
    var hidden = document.getElementById(slider.dataset.target);
    var output = slider.parentNode.querySelector("output");
    slider.classList.remove("unset");
    hidden.value = slider.value;
    output.textContent = slider.value;
    slider.setAttribute("aria-valuetext", slider.value);
  }

  function restore() {
    if (!key) return;
    var draft = null;
    try { draft = JSON.parse(window.sessionStorage.getItem(key) || "null"); } catch (e) { draft = null; }
    if (!draft || typeof draft !== "object") return;
    sliders.forEach(function (s) {
      var value = draft[s.dataset.target];
      if (typeof value === "string" && /^\d{1,3}$/.test(value) && Number(value) <= 100) {
        s.value = value;
        mark(s);
      }
    });
    ticks.forEach(function (t) { if (typeof draft[t.name] === "boolean") t.checked = draft[t.name]; });
  }

  sliders.forEach(function (slider) {
    function moved() {
      mark(slider);
      update();
      save();
    }
    slider.addEventListener("input", moved);
    slider.addEventListener("change", moved);
  });
  ticks.forEach(function (t) { t.addEventListener("change", save); });

  form.addEventListener("submit", function (event) {
    if (sliders.some(function (s) { return s.classList.contains("unset"); })) {
      event.preventDefault();
      update();
    } else {
      submit.disabled = true; // one click, one submission
      try { if (key) window.sessionStorage.removeItem(key); } catch (e) { /* nothing kept */ }
    }
  });
  restore();
  update();
})();
