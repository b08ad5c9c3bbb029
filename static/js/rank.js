// Ranking screen: every output needs a rank (1 = best, equal ranks are ties).
// Radio groups work with Tab and arrow keys; a digit key sets the rank of the
// output whose row has focus.
(function () {
  "use strict";
  var form = document.getElementById("rank-form");
  if (!form) return;
  var items = Array.prototype.slice.call(form.querySelectorAll(".rank-item"));
  var submit = document.getElementById("submit");

  function rankOf(item) {
    var checked = item.querySelector("input[type=radio]:checked");
    return checked ? parseInt(checked.value, 10) : null;
  }

  function update() {
    var left = items.filter(function (i) { return rankOf(i) === null; }).length;
    submit.disabled = left > 0;
    submit.textContent = left > 0 ? "Submit (" + left + " left to rank)" : "Submit";
    items.forEach(function (i) { i.dataset.rank = rankOf(i) || ""; });
  }

  items.forEach(function (item) {
    item.addEventListener("change", update);
    item.addEventListener("keydown", function (event) {
      var n = parseInt(event.key, 10);
      if (!isNaN(n)) {
        var radio = item.querySelector("input[type=radio][value='" + n + "']");
        if (radio) { radio.checked = true; radio.focus(); update(); event.preventDefault(); }
      }
    });
  });

  form.addEventListener("submit", function (event) {
    if (items.some(function (i) { return rankOf(i) === null; })) { event.preventDefault(); update(); }
    else { submit.disabled = true; }
  });
  update();
})();
