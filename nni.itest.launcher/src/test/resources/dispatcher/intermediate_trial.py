# Reports five intermediate results (slowly enough for an assessor to stop it) and a final one;
# with a release file named in argv, the trial of sequence 1 waits for it first.
import os
import sys
import time

import nni

params = nni.get_next_parameter()
if len(sys.argv) > 1 and nni.get_sequence_id() == 1:
    for _ in range(1200):
        if os.path.exists(sys.argv[1]):
            break
        time.sleep(0.1)
for step in range(5):
    nni.report_intermediate_result(step)
    time.sleep(0.3)
nni.report_final_result(float(params.get('x', 0)))
