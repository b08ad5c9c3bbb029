# Python 2.7 driver: runs mfelice/imeasure's ieval.py as its command line does, timing the script's
# body after its imports (its modules are imported first, outside the clock). ieval streams the gold
# XML while it scores, so the parse stays inside the clock; the driver times that parse alone too
# (parse_cpu) so the benchmark can take it out. Prints the correction and detection counts.
# usage: python2 ieval_driver.py IMEASURE_DIR -ref:GOLD.xml -hyp:HYP [-nomix]  (run with cwd IMEASURE_DIR)
from __future__ import print_function

import json
import os
import sys

tool = sys.argv[1]
sys.path.insert(0, tool)
import xml.etree.cElementTree as ET  # noqa: E402

import align  # noqa: E402,F401
import candgen  # noqa: E402,F401

ref = [a[5:] for a in sys.argv[2:] if a.startswith("-ref:")][0]
t0 = sum(os.times()[:2])
for _event, elem in ET.iterparse(ref, events=("start", "end")):
    pass
parse_cpu = sum(os.times()[:2]) - t0

sys.argv = ["ieval.py"] + sys.argv[2:]
path = os.path.join(tool, "ieval.py")
code = compile(open(path).read(), path, "exec", 0, True)
namespace = {"__name__": "__main__"}
stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
t0 = sum(os.times()[:2])
exec(code, namespace)
cpu = sum(os.times()[:2]) - t0
sys.stdout = stdout
counts = namespace["t_counts_sys"]
out = {k: dict(counts[k]) for k in ("c", "d")}
print(json.dumps({"cpu": cpu, "parse_cpu": parse_cpu, "counts": out}))
