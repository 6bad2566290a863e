# Asks for a second parameter set as NNI's trial SDK does (a REQUEST_PARAMETER metric), waits for
# parameter_1.cfg and reports a result made of both sets.
import json
import os
import time

import nni

first = nni.get_next_parameter()
nni._send({'trial_job_id': nni.get_trial_id(), 'type': 'REQUEST_PARAMETER', 'sequence': 0, 'parameter_index': 1})
path = os.path.join(os.environ['NNI_SYS_DIR'], 'parameter_1.cfg')
for _ in range(600):
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        break
    time.sleep(0.1)
with open(path) as file:
    second = json.load(file)
nni.report_final_result(first['x'] * 1000 + second['parameters']['x'])
