# A multi-phase trial as NNI users write one: it calls nni.get_next_parameter() a second time,
# which asks the tuner for the next parameter set (NNI's REQUEST_PARAMETER) and waits for
# parameter_1.cfg; it reports a result made of both sets. With a release file named in argv, it
# waits for that file (at most two minutes) before it reports.
import os
import sys
import time

import nni

first = nni.get_next_parameter()
second = nni.get_next_parameter()
if len(sys.argv) > 1:
    for _ in range(1200):
        if os.path.exists(sys.argv[1]):
            break
        time.sleep(0.1)
nni.report_final_result(first['x'] * 1000 + second['x'])
