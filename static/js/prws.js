// PRWS screen: a slider counts as rated only once the judge has moved it
// (mouse, touch or keyboard); the form cannot be submitted before that.
(function () {
  "use strict";
  var form = document.getElementById("prws-form");
  if (!form) return;
  var sliders = Array.prototype.slice.call(form.querySelectorAll(".prws-slider"));
  var submit = document.getElementById("submit");

  function update() {
    var unset = sliders.filter(function (s) { return s.classList.contains("unset"); }).length;
    submit.disabled = unset > 0;
    submit.textContent = unset > 0 ? "Submit (" + unset + " left to rate)" : "Submit";
  }

  sliders.forEach(function (slider) {
    var hidden = document.getElementById(slider.dataset.target);
    var output = slider.parentNode.querySelector("output");
    function moved() {
      slider.classList.remove("unset");
      hidden.value = slider.value;
      output.textContent = slider.value;
      slider.setAttribute("aria-valuetext", slider.value);
      update();
    }
    slider.addEventListener("input", moved);
    slider.addEventListener("change", moved);
  });

  form.addEventListener("submit", function (event) {
    if (sliders.some(function (s) { return s.classList.contains("unset"); })) {
      event.preventDefault();
      update();
    } else {
      submit.disabled = true; // one click, one submission
    }
  });
  update();
})();
