"""``python -m geceval edit-stats --source FILE --corrections FILE [FILE ...] [--json]``.

Describes a set of corrections of one source (one sentence a line, all files
line-aligned):

- GMEG 2019 Table 3 with all corrections pooled: sentences, tokens per
  sentence (mean and sd), % unchanged, ERRANT edits per changed sentence,
  tokens per edit, type-token ratio, and the ERRANT main error-type shares
  (its Figure 1); :func:`geceval.metaeval.edit_stats.describe_corpus` states the
  choices the paper leaves open;
- per file: % unchanged, mean character and word Levenshtein distance, mean
  sTER and mean TER x 100 against the source (Sakaguchi et al. 2016 Figure 2);
- with two or more files, Sakaguchi et al. 2016 Table 4: % identical, mean
  sTER and mean TER x 100 for every pair of files (the earlier file as the
  reference) and their mean over all pairs.

Units: sTER is Sakaguchi et al.'s, edits per sentence (TER's edit count,
shifts counting one, case-insensitive, not divided by the length; see
:func:`geceval.metrics.sacre.ster`); TER x 100 is sacrebleu's case-sensitive
sentence TER, edits per 100 reference tokens; LDs are characters or words per
sentence. ``--skip-lines FILE`` leaves out the sentences whose 1-based line
numbers the file lists (Sakaguchi et al. skipped the 34 of reassess-gec's
``merged_ids``; with it, the released rewrites give Table 4's cells).

GMEG Table 4 needs annotations the GMEG release does not include; the output
says so. ``--json`` prints ``{"source", "corrections", "skipped", "units": {...},
"table3": {...}, "files": [{"file", "n", "pct_unchanged", "mean_char_ld",
"mean_word_ld", "mean_ster", "mean_ter_x100"}], "pairs": [{"a", "b", "n",
"pct_identical", "mean_ster", "mean_ter_x100"}], "pairs_mean":
{"pct_identical", "mean_ster", "mean_ter_x100"} | null, "gmeg_table4": note}``.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

from geceval.cli.output import fmt, print_json
from geceval.errors import GecInputError
from geceval.formats.text import read_lines
from geceval.metaeval import edit_stats as editstats
from geceval.papers.sakaguchi2016 import read_skip_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, metavar="FILE")
    parser.add_argument("--corrections", nargs="+", required=True, metavar="FILE", help="one per annotator")
    parser.add_argument(
        "--skip-lines",
        metavar="FILE",
        help="1-based line numbers to leave out (e.g. reassess-gec's merged_ids, as Sakaguchi et al. 2016 did)",
    )
    parser.add_argument("--json", action="store_true")


UNITS = {
    "pct_unchanged": "% of sentences",
    "pct_identical": "% of sentences",
    "mean_char_ld": "characters per sentence (Levenshtein)",
    "mean_word_ld": "words per sentence (Levenshtein)",
    "mean_ster": "edits per sentence (sTER, Sakaguchi et al. 2016: TER edit count, case-insensitive)",
    "mean_ter_x100": "edits per 100 reference tokens (sacrebleu sentence TER x 100, case-sensitive)",
}


def run(args: argparse.Namespace) -> int:
    source = read_lines(args.source)
    corrections = [read_lines(path, allow_empty=True) for path in args.corrections]
    for path, lines in zip(args.corrections, corrections):
        editstats._check(source, lines, path)
    skip = read_skip_lines(args.skip_lines) if args.skip_lines else set()
    if skip and max(skip) >= len(source):
        raise GecInputError(
            f"line {max(skip) + 1} is past the source's {len(source)} lines", path=args.skip_lines
        )
    kept = [i for i in range(len(source)) if i not in skip]
    table3 = editstats.describe_corpus([source[i] for i in kept], [[c[i] for i in kept] for c in corrections])
    files = []
    for path, lines in zip(args.corrections, corrections):
        files.append({"file": path, **asdict(editstats.edit_stats(source, lines, skip=skip))})
    pairs = [
        {"a": args.corrections[i], "b": args.corrections[j], **asdict(p)}
        for i, j, p in editstats.pairwise_agreement(corrections, skip=skip)
    ]
    pairs_mean = (
        {
            key: sum(p[key] for p in pairs) / len(pairs)
            for key in ("pct_identical", "mean_ster", "mean_ter_x100")
        }
        if pairs
        else None
    )
    if args.json:
        print_json(
            {
                "source": args.source,
                "corrections": args.corrections,
                "skipped": len(skip),
                "units": UNITS,
                "table3": asdict(table3),
                "files": files,
                "pairs": pairs,
                "pairs_mean": pairs_mean,
                "gmeg_table4": editstats.TABLE4_NOTE,
            }
        )
        return 0
    _print_text(args, len(corrections), len(skip), table3, files, pairs, pairs_mean)
    return 0


def _print_text(args, n_files: int, n_skipped: int, t, files: list, pairs: list, pairs_mean) -> None:
    skipped = f", {n_skipped} line(s) of {args.skip_lines} left out" if n_skipped else ""
    print(f"source {args.source}{skipped}, {n_files} correction file(s) pooled (GMEG 2019 Table 3):")
    print(
        f"  sentences {t.sentences}; tokens/sentence {t.tokens_per_sentence:.1f} ± {t.tokens_per_sentence_sd:.1f}; "
        f"unchanged {t.pct_unchanged:.1f}%; edits/changed sentence {t.edits_per_changed_sentence:.2f}; "
        f"tokens/edit {t.tokens_per_edit:.2f}; type-token ratio {t.type_token_ratio:.3f}"
    )
    top = ", ".join(f"{k} {100 * v:.1f}%" for k, v in list(t.error_types.items())[:10])
    print(f"  ERRANT error types (share of edits): {top or 'none'}")
    print("Against the source, means per sentence (units below):")
    print(f"{'file':<40} {'unchanged %':>11} {'char LD':>8} {'word LD':>8} {'sTER':>8} {'TERx100':>8}")
    for f in files:
        print(
            f"{f['file']:<40} {f['pct_unchanged']:>11.1f} {fmt(f['mean_char_ld'], 2):>8} "
            f"{fmt(f['mean_word_ld'], 2):>8} {fmt(f['mean_ster'], 2):>8} {fmt(f['mean_ter_x100'], 2):>8}"
        )
    if pairs:
        print("Annotator agreement (Sakaguchi et al. 2016 Table 4; the first file is the reference):")
        for p in pairs:
            print(
                f"  {p['a']} v. {p['b']}: identical {p['pct_identical']:.1f}% of sentences, "
                f"sTER {p['mean_ster']:.2f} edits/sentence, TER x 100 {p['mean_ter_x100']:.2f} edits/100 tokens"
            )
        m = pairs_mean
        print(
            f"  mean over pairs: identical {m['pct_identical']:.1f}% of sentences, "
            f"sTER {m['mean_ster']:.2f} edits/sentence, TER x 100 {m['mean_ter_x100']:.2f} edits/100 tokens"
        )
    print("Units:")
    for key, label in (
        ("mean_char_ld", "char LD"),
        ("mean_word_ld", "word LD"),
        ("mean_ster", "sTER"),
        ("mean_ter_x100", "TER x 100"),
    ):
        print(f"  {label}: {UNITS[key]}")
    print(f"Note: {editstats.TABLE4_NOTE}")
