// Expert review by keyboard, as on the rewrite page: Alt+A accept, Alt+E save the edit, Alt+R reject.
// A rejection needs a reason: Alt+R (or the Reject button) with the reason empty moves to the box.
(function () {
  "use strict";
  var form = document.getElementById("review-form");
  if (!form) return;
  var reason = document.getElementById("review-reason");

  function click(id) {
    var button = document.getElementById(id);
    if (button) button.click();
  }

  form.addEventListener("submit", function (e) {
    var decision = e.submitter && e.submitter.value;
    if (decision === "reject" && !reason.value.trim()) {
      e.preventDefault();
      reason.setAttribute("aria-invalid", "true");
      reason.focus();
    }
  });

  document.addEventListener("keydown", function (e) {
    if (!e.altKey || e.ctrlKey || e.metaKey) return;
    var key = (e.key || "").toLowerCase();
    if (key === "a" || e.code === "KeyA") { e.preventDefault(); click("review-accept"); }
    else if (key === "e" || e.code === "KeyE") { e.preventDefault(); click("review-edit"); }
    else if (key === "r" || e.code === "KeyR") { e.preventDefault(); click("review-reject"); }
  });
})();
