"""A trial the web UI tests hold: it says hello on stdout and stderr, reports three intermediate
results, then waits until the test creates control/go-<sequence id> (or control/go-all) and
reports its final result, x + 0.5 for adam."""
import os
import pathlib
import sys
import time

import nni

params = nni.get_next_parameter()
sequence = nni.get_sequence_id()
print(f'trial {sequence} says hello: {params}', flush=True)
print(f'trial {sequence} to stderr', file=sys.stderr, flush=True)
for step in range(3):
    nni.report_intermediate_result(params['x'] * (step + 1) / 3)
control = pathlib.Path(os.path.abspath(__file__)).parent / 'control'
deadline = time.time() + 600
while not (control / f'go-{sequence}').exists() and not (control / 'go-all').exists():
    if time.time() > deadline:
        sys.exit('nobody released trial %d within 10 minutes' % sequence)
    time.sleep(0.05)
nni.report_final_result(params['x'] + (0.5 if params['opt'] == 'adam' else 0))
