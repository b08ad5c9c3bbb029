// The annotator page: live word diff against the source, server-side autosave
// (with a localStorage copy for when the session has expired), keyboard use.
(function () {
  "use strict";
  var form = document.getElementById("rw-form");
  if (!form) return;
  var box = document.getElementById("rw-text");
  var diffOut = document.getElementById("rw-diff");
  var status = document.getElementById("rw-status");
  var secondsField = document.getElementById("rw-seconds");
  var source = box.getAttribute("data-source");
  var draftUrl = form.getAttribute("data-draft-url");
  var sentence = form.getAttribute("data-sentence");
  var storeKey = "gec-rewrite-draft:" + form.getAttribute("data-campaign") + ":" + sentence;
  var baseSeconds = parseFloat(form.getAttribute("data-draft-seconds")) || 0;
  var shownAt = Date.now();
  var activeMs = 0;
  var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  function seconds() {
    var now = Date.now();
    var total = activeMs + (document.hidden ? 0 : now - shownAt);
    return Math.round(baseSeconds + total / 1000);
  }
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { activeMs += Date.now() - shownAt; } else { shownAt = Date.now(); }
  });

  var wordDiff = window.gecWordDiff.wordDiff;  // static/js/word_diff.js: difflib's diff, as the server's

  function flag() {
    var checked = form.querySelector("input[name=flag]:checked");
    return checked ? checked.value : "";
  }
  function difficulty() {
    var checked = form.querySelector("input[name=difficulty]:checked");
    return checked ? checked.value : null;
  }

  function render() {
    diffOut.textContent = "";
    if (flag()) {
      diffOut.textContent = "Flagged: the sentence will be submitted without a rewrite.";
      return;
    }
    var ops = wordDiff(source, box.value);
    var changed = false;
    ops.forEach(function (op) {
      var el;
      if (op[0] === "same") { el = document.createTextNode(op[1]); }
      else {
        changed = true;
        el = document.createElement(op[0]);
        el.textContent = op[1];
      }
      diffOut.appendChild(el);
      diffOut.appendChild(document.createTextNode(" "));
    });
    diffOut.classList.toggle("unchanged", !changed);
    if (!changed) { diffOut.insertBefore(document.createTextNode("(no change) "), diffOut.firstChild); }
  }

  function syncFlag() {
    box.disabled = !!flag();
    render();
  }

  var timer = null;
  var restored = false;
  function state() {
    return { sentence: sentence, text: box.value, flag: flag(), difficulty: difficulty(), seconds: seconds() };
  }
  function saveLocal() {
    var copy = state();
    copy.t = Date.now();
    try { localStorage.setItem(storeKey, JSON.stringify(copy)); } catch (e) { /* private mode */ }
  }
  function saveServer() {
    timer = null;
    var body = JSON.stringify(state());
    fetch(draftUrl, {
      method: "POST", credentials: "same-origin", redirect: "error",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: body
    }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      status.textContent = restored ? "Restored your unsaved draft · saved" : "Draft saved";
    }).catch(function () {
      status.textContent = "Draft kept in this browser (the server could not be reached; log in again if needed)";
    });
  }
  function changed() {
    restored = false;
    render();
    saveLocal();
    status.textContent = "Editing…";
    if (timer) clearTimeout(timer);
    timer = setTimeout(saveServer, 700);
  }

  // The browser's copy wins only when it is newer than the server's draft (the session
  // expired while typing, or the network was down): it is then sent to the server again.
  if (!document.getElementById("rw-error")) {
    try {
      var local = JSON.parse(localStorage.getItem(storeKey) || "null");
      var serverTime = parseInt(form.getAttribute("data-draft-updated"), 10) || 0;
      if (local && local.sentence === sentence && (local.t || 0) > serverTime + 1000) {
        box.value = local.text;
        if (local.flag) { var f = form.querySelector("input[name=flag][value='" + local.flag + "']"); if (f) f.checked = true; }
        if (local.difficulty) { var d = form.querySelector("input[name=difficulty][value='" + local.difficulty + "']"); if (d) d.checked = true; }
        status.textContent = "Restored your unsaved draft";
        restored = true;
        saveServer();
      }
    } catch (e) { /* ignore a corrupt copy */ }
  }

  // A rewrite is one line: Enter does not break it, and pasted line breaks become spaces.
  box.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.ctrlKey && !e.metaKey) { e.preventDefault(); }
  });
  box.addEventListener("input", function () {
    if (/[\r\n]/.test(box.value)) { box.value = box.value.replace(/[\r\n]+/g, " "); }
    changed();
  });
  form.querySelectorAll("input[name=flag], input[name=difficulty]").forEach(function (el) {
    el.addEventListener("change", function () { syncFlag(); changed(); });
  });
  document.getElementById("rw-reset").addEventListener("click", function () {
    box.value = source; changed(); box.focus();
  });
  form.addEventListener("submit", function () {
    secondsField.value = seconds();
    try { localStorage.removeItem(storeKey); } catch (e) { /* ignore */ }
  });

  document.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      document.getElementById("rw-submit").click();
    } else if (e.altKey && !e.ctrlKey) {
      var key = e.key.toLowerCase();
      if (key === "k" || e.code === "KeyK") { e.preventDefault(); document.getElementById("rw-skip").click(); }
      else if (key === "r" || e.code === "KeyR") { e.preventDefault(); document.getElementById("rw-reset").click(); }
      else if (key === "i" || e.code === "KeyI") {
        e.preventDefault();
        var det = document.getElementById("instructions");
        det.open = !det.open;
      } else if (/^Digit[1-5]$/.test(e.code)) {
        var radio = form.querySelector("input[name=difficulty][value='" + e.code.slice(5) + "']");
        if (radio) { e.preventDefault(); radio.checked = true; changed(); }
      }
    }
  });

  syncFlag();
  box.focus();
  box.setSelectionRange(box.value.length, box.value.length);
})();
