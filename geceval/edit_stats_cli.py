"""``python -m geceval edit-stats --source FILE --corrections FILE [FILE ...] [--json]``.

Describes a set of corrections of one source (one sentence a line, all files
line-aligned):

- GMEG 2019 Table 3 with all corrections pooled: sentences, tokens per
  sentence (mean and sd), % unchanged, ERRANT edits per changed sentence,
  tokens per edit, type-token ratio, and the ERRANT main error-type shares
  (its Figure 1); :func:`geceval.editstats.describe_corpus` states the
  choices the paper leaves open;
- per file: % unchanged, mean character and word Levenshtein distance and mean
  sTER against the source (Sakaguchi et al. 2016 Figure 2);
- with two or more files, Sakaguchi et al. 2016 Table 4: % identical and mean
  sTER for every pair of files (the earlier file as the sTER reference) and
  their mean over all pairs.

GMEG Table 4 needs annotations the GMEG release does not include; the output
says so. ``--json`` prints ``{"source", "corrections", "table3": {...},
"files": [{"file", "n", "pct_unchanged", "mean_char_ld", "mean_word_ld",
"mean_ster"}], "pairs": [{"a", "b", "n", "pct_identical", "mean_ster"}],
"pairs_mean": {"pct_identical", "mean_ster"} | null, "gmeg_table4": note}``.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

from geceval import editstats
from geceval.formats.text import read_lines
from geceval.stats_cli import fmt, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, metavar="FILE")
    parser.add_argument("--corrections", nargs="+", required=True, metavar="FILE", help="one per annotator")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    source = read_lines(args.source)
    corrections = [read_lines(path, allow_empty=True) for path in args.corrections]
    for path, lines in zip(args.corrections, corrections):
        editstats._check(source, lines, path)
    table3 = editstats.describe_corpus(source, corrections)
    files = []
    for path, lines in zip(args.corrections, corrections):
        files.append({"file": path, **asdict(editstats.edit_stats(source, lines))})
    pairs = [
        {"a": args.corrections[i], "b": args.corrections[j], **asdict(p)}
        for i, j, p in editstats.pairwise_agreement(corrections)
    ]
    pairs_mean = (
        {
            "pct_identical": sum(p["pct_identical"] for p in pairs) / len(pairs),
            "mean_ster": sum(p["mean_ster"] for p in pairs) / len(pairs),
        }
        if pairs
        else None
    )
    if args.json:
        print_json(
            {
                "source": args.source,
                "corrections": args.corrections,
                "table3": asdict(table3),
                "files": files,
                "pairs": pairs,
                "pairs_mean": pairs_mean,
                "gmeg_table4": editstats.TABLE4_NOTE,
            }
        )
        return 0
    t = table3
    print(f"source {args.source}, {len(corrections)} correction file(s) pooled (GMEG 2019 Table 3):")
    print(
        f"  sentences {t.sentences}; tokens/sentence {t.tokens_per_sentence:.1f} ± {t.tokens_per_sentence_sd:.1f}; "
        f"unchanged {t.pct_unchanged:.1f}%; edits/changed sentence {t.edits_per_changed_sentence:.2f}; "
        f"tokens/edit {t.tokens_per_edit:.2f}; type-token ratio {t.type_token_ratio:.3f}"
    )
    top = ", ".join(f"{k} {100 * v:.1f}%" for k, v in list(t.error_types.items())[:10])
    print(f"  ERRANT error types (share of edits): {top or 'none'}")
    print(f"{'file':<40} {'unchanged%':>10} {'charLD':>8} {'wordLD':>8} {'sTER':>8}")
    for f in files:
        print(
            f"{f['file']:<40} {f['pct_unchanged']:>10.1f} {fmt(f['mean_char_ld'], 2):>8} "
            f"{fmt(f['mean_word_ld'], 2):>8} {fmt(f['mean_ster'], 2):>8}"
        )
    if pairs:
        print("Annotator agreement (Sakaguchi et al. 2016 Table 4):")
        for p in pairs:
            print(f"  {p['a']} v. {p['b']}: identical {p['pct_identical']:.1f}%, sTER {p['mean_ster']:.2f}")
        print(
            f"  mean over pairs: identical {pairs_mean['pct_identical']:.1f}%, sTER {pairs_mean['mean_ster']:.2f}"
        )
    print(f"Note: {editstats.TABLE4_NOTE}")
    return 0
