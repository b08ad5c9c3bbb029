// Edit-level screen: every change needs a label (good, bad, neutral) and every correction a rank
// (1 = best, equal ranks are ties). Radio groups work with Tab and arrow keys; g, b and n label the
// change whose group has focus and move on to the next group; a digit ranks the correction whose
// rank group has focus.
(function () {
  "use strict";
  var form = document.getElementById("edits-form");
  if (!form) return;
  var groups = Array.prototype.slice.call(form.querySelectorAll(".edit-choice, .rank-choices"));
  var submit = document.getElementById("submit");

  function answered(group) {
    return group.querySelector("input[type=radio]:checked") !== null;
  }

  function update() {
    var left = groups.filter(function (g) { return !answered(g); }).length;
    submit.disabled = left > 0;
    submit.textContent = left > 0 ? "Submit (" + left + " left)" : "Submit";
    form.querySelectorAll(".rank-item").forEach(function (item) {
      var checked = item.querySelector(".rank-choices input:checked");
      item.dataset.rank = checked ? checked.value : "";
    });
    groups.forEach(function (g) {
      if (!g.classList.contains("edit-choice")) return;
      var checked = g.querySelector("input:checked");
      var span = document.getElementById("span-" + g.querySelector("input").name.slice(5));
      if (span) span.dataset.label = checked ? checked.value : "";
    });
  }

  function focusGroup(group) {
    var target = group.querySelector("input:checked") || group.querySelector("input");
    if (target) target.focus();
  }

  function choose(group, selector) {
    var radio = group.querySelector(selector);
    if (!radio) return false;
    radio.checked = true;
    update();
    var next = groups[groups.indexOf(group) + 1];
    if (group.classList.contains("edit-choice") && next) focusGroup(next);
    else radio.focus();
    return true;
  }

  groups.forEach(function (group) {
    group.addEventListener("change", update);
    group.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var key = event.key.toLowerCase();
      var done = false;
      if (group.classList.contains("edit-choice")) {
        if (key === "g" || key === "b" || key === "n") done = choose(group, "input[data-key='" + key + "']");
      } else if (/^[0-9]$/.test(key)) {
        done = choose(group, "input[value='" + key + "']");
      }
      if (done) event.preventDefault();
    });
  });

  form.addEventListener("submit", function (event) {
    if (groups.some(function (g) { return !answered(g); })) { event.preventDefault(); update(); }
    else { submit.disabled = true; }
  });
  update();
})();
