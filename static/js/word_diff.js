// Word-level diff of a rewrite against its source: Python's difflib.SequenceMatcher
// (no junk, autojunk off) on whitespace-split tokens, as annotate/rewrites/diff.py runs it
// on the server, so the live diff and the review pages mark the same words.
// tests/annotate/test_word_diff_parity.py runs both on 1,000 random sentence pairs.
(function (root) {
  "use strict";

  // The characters Python's str.split() splits on (str.isspace), not JavaScript's \s.
  var SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

  function words(s) { return s.split(SPACE).filter(function (w) { return w !== ""; }); }

  function longestMatch(a, b2j, alo, ahi, blo, bhi) {
    var besti = alo, bestj = blo, bestsize = 0, j2len = new Map();
    for (var i = alo; i < ahi; i++) {
      var newj2len = new Map();
      var js = b2j.get(a[i]) || [];
      for (var n = 0; n < js.length; n++) {
        var j = js[n];
        if (j < blo) continue;
        if (j >= bhi) break;
        var k = (j2len.get(j - 1) || 0) + 1;
        newj2len.set(j, k);
        if (k > bestsize) { besti = i - k + 1; bestj = j - k + 1; bestsize = k; }
      }
      j2len = newj2len;
    }
    return [besti, bestj, bestsize];
  }

  function matchingBlocks(a, b) {
    var b2j = new Map();
    b.forEach(function (w, j) {
      if (!b2j.has(w)) b2j.set(w, []);
      b2j.get(w).push(j);
    });
    var queue = [[0, a.length, 0, b.length]], blocks = [];
    while (queue.length) {
      var q = queue.pop(), alo = q[0], ahi = q[1], blo = q[2], bhi = q[3];
      var m = longestMatch(a, b2j, alo, ahi, blo, bhi), i = m[0], j = m[1], k = m[2];
      if (k) {
        blocks.push(m);
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    blocks.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
    var out = [], i1 = 0, j1 = 0, k1 = 0;
    blocks.forEach(function (blk) {
      if (i1 + k1 === blk[0] && j1 + k1 === blk[1]) { k1 += blk[2]; return; }
      if (k1) out.push([i1, j1, k1]);
      i1 = blk[0]; j1 = blk[1]; k1 = blk[2];
    });
    if (k1) out.push([i1, j1, k1]);
    out.push([a.length, b.length, 0]);
    return out;
  }

  // [[op, text]] with op in "same", "del", "ins": deletions before insertions, as the papers print them.
  function wordDiff(source, target) {
    var a = words(source), b = words(target), out = [], i = 0, j = 0;
    matchingBlocks(a, b).forEach(function (blk) {
      var ai = blk[0], bj = blk[1], size = blk[2];
      if (i < ai) out.push(["del", a.slice(i, ai).join(" ")]);
      if (j < bj) out.push(["ins", b.slice(j, bj).join(" ")]);
      i = ai + size; j = bj + size;
      if (size) out.push(["same", a.slice(ai, i).join(" ")]);
    });
    return out;
  }

  var api = { words: words, wordDiff: wordDiff };
  if (typeof module === "object" && module.exports) { module.exports = api; } else { root.gecWordDiff = api; }
})(this);
