// Copy buttons: <button data-copy="ID"> copies the value of the read-only input ID.
// The clipboard API where the page may use it (https or localhost); else the text is selected
// and the browser's copy command tried, so Ctrl+C works at worst. No framework.
(function () {
  "use strict";
  var status = document.getElementById("copy-status");

  function say(text) {
    if (status) status.textContent = text;
  }

  function fallback(field) {
    field.focus();
    field.select();
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (e) {
      copied = false;
    }
    say(copied ? "Link copied." : "Link selected: press Ctrl+C (or Cmd+C) to copy it.");
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy"));
      if (!field) return;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(
          function () {
            field.select();
            say("Link copied.");
          },
          function () {
            fallback(field);
          }
        );
      } else {
        fallback(field);
      }
    });
  });
})();
