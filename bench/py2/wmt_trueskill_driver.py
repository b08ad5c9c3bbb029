# Python 2.7 driver: one run of keisks/wmt-trueskill's infer_TS.py as its command line does
# (reading the judgments CSV from stdin), timing its estimation alone (estimate_by_number),
# excluding start-up and parsing. Prints the CPU seconds and the run's mu per system. Not product code.
# usage: python2 wmt_trueskill_driver.py SRC_DIR OUT_PREFIX [infer_TS options] < judgments.csv
from __future__ import print_function

import json
import os
import sys

src = sys.argv[1]
sys.path.insert(0, src)
sys.argv = ["infer_TS.py"] + sys.argv[2:]
path = os.path.join(src, "infer_TS.py")
namespace = {"__name__": "infer_TS"}
exec(compile(open(path).read(), path, "exec", 0, True), namespace)
all_systems, sent_sys_rank = namespace["parse_csv"]()
namespace["all_systems"] = all_systems
namespace["fill_comparisons"](all_systems, sent_sys_rank)
stderr, sys.stderr = sys.stderr, open(os.devnull, "w")
t0 = sum(os.times()[:2])
namespace["estimate_by_number"]()
cpu = sum(os.times()[:2]) - t0
sys.stderr = stderr
mus = json.load(open(sys.argv[1] + "_mu_sigma.json"))
print(json.dumps({"cpu": cpu, "mu_sigma": mus}))
