// New rewrite campaign: choosing a preset fills the instructions with its full text, which stays editable.
(function () {
  "use strict";
  var data = document.getElementById("preset-texts");
  var preset = document.getElementById("id_preset");
  var text = document.getElementById("id_instructions");
  if (!data || !preset || !text) return;
  var texts = JSON.parse(data.textContent);
  var lastFilled = null;
  function fill() {
    if (!text.value.trim() || text.value === lastFilled) {
      text.value = texts[preset.value] || "";
      lastFilled = text.value;
    }
  }
  preset.addEventListener("change", fill);
  fill();
})();
