# Python 2.7 driver: runs m2scorer.py as its command line does, but has its scoring function
# (levenshtein.batch_multi_pre_rec_f1) score every sentence as a corpus of its own -- m2scorer run
# sentence by sentence, in one process -- and prints the per-sentence F as JSON. Not product code.
# usage: python2 m2scorer_sentences_driver.py SCRIPTS_DIR HYP GOLD [m2scorer options]
from __future__ import print_function

import json
import os
import sys

scripts = sys.argv[1]
sys.path.insert(0, scripts)
import levenshtein  # noqa: E402

real = levenshtein.batch_multi_pre_rec_f1
box = {}


def per_sentence(candidates, sources, gold_edits, *args, **kwargs):
    t0 = sum(os.times()[:2])
    box["f"] = [real([c], [s], [g], *args, **kwargs)[2] for c, s, g in zip(candidates, sources, gold_edits)]
    box["cpu"] = sum(os.times()[:2]) - t0
    return (0.0, 0.0, 0.0)


levenshtein.batch_multi_pre_rec_f1 = per_sentence
sys.argv = ["m2scorer.py"] + sys.argv[2:]
stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
path = os.path.join(scripts, "m2scorer.py")
code = compile(open(path).read(), path, "exec", 0, True)  # dont_inherit: the tool uses print statements
exec(code, {"__name__": "__main__"})
sys.stdout = stdout
print(json.dumps({"cpu": box["cpu"], "f": box["f"]}))
