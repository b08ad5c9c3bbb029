# Python 2.7 driver: runs m2scorer.py as its command line does and times its scoring call alone
# (levenshtein.batch_multi_pre_rec_f1), excluding start-up and file reading. Not product code.
# usage: python2 m2scorer_driver.py SCRIPTS_DIR HYP GOLD [m2scorer options]
from __future__ import print_function

import json
import os
import sys

scripts = sys.argv[1]
sys.path.insert(0, scripts)
import levenshtein  # noqa: E402

real = levenshtein.batch_multi_pre_rec_f1
box = {}


def timed(*args, **kwargs):
    t0 = sum(os.times()[:2])
    result = real(*args, **kwargs)
    box["cpu"] = sum(os.times()[:2]) - t0
    box["prf"] = list(result)
    return result


levenshtein.batch_multi_pre_rec_f1 = timed
sys.argv = ["m2scorer.py"] + sys.argv[2:]
stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
path = os.path.join(scripts, "m2scorer.py")
code = compile(open(path).read(), path, "exec", 0, True)  # dont_inherit: the tool uses print statements
exec(code, {"__name__": "__main__"})
sys.stdout = stdout
print(json.dumps({"cpu": box["cpu"], "p": box["prf"][0], "r": box["prf"][1], "f": box["prf"][2]}))
