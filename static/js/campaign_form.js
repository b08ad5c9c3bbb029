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
})();
