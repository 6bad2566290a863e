# An NNI trial that reports a result per step and waits for the test's go-ahead (a file) before
# finishing, so the test can look at it through the REST API while it runs.
import os
import time

import nni

params = nni.get_next_parameter()
x = params['x']
for step in range(int(os.environ.get('STEPS', '6'))):
    nni.report_intermediate_result(x + step / 100)
    time.sleep(0.1)
release = os.path.join(os.environ['NNI_CODE_DIR'], 'release')
# at most 5 minutes: long enough for a loaded machine to get through what the test does meanwhile
for _ in range(6000):
    if os.path.exists(release):
        break
    time.sleep(0.05)
nni.report_final_result(x)
