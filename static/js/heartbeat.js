// While a work page is open, renew the lease on its HIT (ranking/work/leases.py).
(function () {
  "use strict";
  var el = document.getElementById("heartbeat");
  if (!el || !window.fetch) {
    return;
  }
  var url = el.getAttribute("data-url");
  var seconds = parseInt(el.getAttribute("data-seconds"), 10) || 60;
  var token = document.querySelector('input[name="csrfmiddlewaretoken"]');
  var timer = null;
  function beat() {
    var headers = { "X-Requested-With": "fetch" };
    if (token) {
      headers["X-CSRFToken"] = token.value;
    }
    fetch(url, { method: "POST", headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 404 || response.status === 409) {
          window.clearInterval(timer); // the HIT is no longer open: nothing to renew
        }
      })
      .catch(function () {}); // offline for a moment: the next beat tries again
  }
  timer = window.setInterval(beat, seconds * 1000);
})();
