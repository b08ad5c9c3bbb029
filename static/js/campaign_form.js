// The campaign form: only the chosen corpus's systems are offered. Each system option carries
// data-corpus (ranking.forms.CorpusCheckboxes / CorpusSelect); when the corpus select changes,
// other corpora's systems are hidden and unticked, without a reload. The server checks it again.
(function () {
  "use strict";
  var corpus = document.getElementById("id_corpus");
  if (!corpus) return;
  var hint = document.getElementById("no-corpus-systems");

  function checkboxes() {
    return document.querySelectorAll('#id_systems input[type="checkbox"][data-corpus]');
  }

  function update() {
    var chosen = corpus.value;
    var shown = 0;
    checkboxes().forEach(function (box) {
      var mine = chosen !== "" && box.getAttribute("data-corpus") === chosen;
      var row = box.closest("div") || box.parentElement;
      row.hidden = !mine;
      box.disabled = !mine;
      if (!mine) box.checked = false;
      if (mine) shown += 1;
    });
    ["id_reference", "id_trap_system"].forEach(function (id) {
      var select = document.getElementById(id);
      if (!select) return;
      Array.prototype.forEach.call(select.options, function (option) {
        var tag = option.getAttribute("data-corpus");
        if (tag === null) return; // the empty choice
        var mine = tag === chosen;
        option.hidden = !mine;
        option.disabled = !mine;
        if (!mine && option.selected) select.value = "";
      });
    });
    if (hint) hint.hidden = shown > 0;
  }

  corpus.addEventListener("change", update);
  update();

  // What the screens would cover (issue 40): as the choices change, the whole form is posted to the
  // forecast and its fragment shown above the submit button, so the few-outputs warning and its
  // "Create it anyway" box come before the first submit (without a script, the server still refuses
  // once and shows them).
  var forecast = document.getElementById("screen-forecast");
  var campaignForm = document.getElementById("campaign-form");
  if (forecast && campaignForm && window.fetch) {
    var watched = ["protocol", "corpus", "domain", "systems", "max_candidates", "active_selection",
      "sample_first_line", "sample_last_line", "sample_size", "sample_seed"];
    var timer = null;
    var asked = 0;
    var refresh = function () {
      var mine = ++asked;
      forecast.setAttribute("aria-busy", "true");
      fetch(forecast.getAttribute("data-url"), {
        method: "POST",
        body: new FormData(campaignForm),
        credentials: "same-origin",
      })
        .then(function (response) {
          // only the forecast's own fragment goes into the form, never a login or error page
          if (!response.ok) throw new Error("forecast " + response.status);
          return response.text();
        })
        .then(function (html) { if (mine === asked) forecast.innerHTML = html; })
        .catch(function () { if (mine === asked) forecast.textContent = "The forecast could not be loaded."; })
        .then(function () { if (mine === asked) forecast.removeAttribute("aria-busy"); });
    };
    var changed = function (event) {
      if (!event.target || watched.indexOf(event.target.name) < 0) return;
      window.clearTimeout(timer);
      timer = window.setTimeout(refresh, 300);
    };
    campaignForm.addEventListener("change", changed);
    campaignForm.addEventListener("input", changed);
  }

  // "Preview traps": the whole form is posted to the preview (its formaction); here only the
  // fragment is asked for and shown under the button, so nothing typed in the form is lost.
  var previewButton = document.getElementById("preview-traps");
  var preview = document.getElementById("trap-preview");
  var form = document.getElementById("campaign-form");
  if (!previewButton || !preview || !form || !window.fetch) return;
  previewButton.addEventListener("click", function (event) {
    event.preventDefault();
    previewButton.disabled = true;
    preview.hidden = false;
    preview.setAttribute("aria-busy", "true");
    preview.textContent = "Generating example traps…";
    fetch(previewButton.getAttribute("formaction") + "?fragment=1", {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
    })
      .then(function (response) { return response.text(); })
      .then(function (html) { preview.innerHTML = html; })
      .catch(function () { preview.textContent = "The preview could not be loaded: try again."; })
      .then(function () {
        preview.removeAttribute("aria-busy");
        previewButton.disabled = false;
        preview.focus();
      });
  });
})();
