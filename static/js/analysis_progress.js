// Polls a run's progress JSON and moves the progress bar; reloads the page when the run finishes.
(function () {
  "use strict";
  var box = document.getElementById("progress-box");
  if (!box) return;
  var status = box.getAttribute("data-status");
  if (status === "done" || status === "failed") return;
  var url = box.getAttribute("data-url");
  var bar = document.getElementById("run-progress");
  var text = document.getElementById("run-progress-text");
  var label = document.getElementById("run-status");
  function tick() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (p) {
        bar.value = p.percent;
        bar.textContent = p.percent + "%";
        text.textContent = p.done + " of " + p.total + " (" + p.percent + "%)";
        label.textContent = p.status;
        if (p.status === "done" || p.status === "failed") {
          window.location.reload();
        } else {
          window.setTimeout(tick, 1000);
        }
      })
      .catch(function () { window.setTimeout(tick, 5000); });
  }
  window.setTimeout(tick, 500);
})();
