# Started by nni-osgi in place of `python -m nni` for NNI's Hyperband and BOHB advisors.
#
# NNI 3.0's advisors give their trials string parameter ids ("0-4_0_3": bracket, round, number),
# and the resume check they inherit (nni.recoverable) compares every id with an integer, so the
# first result raises TypeError (microsoft/nni#5263; upstream NNI fails the same way). No value of
# parameter_id the manager could forward satisfies both: the advisor splits it as a string. So the
# check is taught string ids before NNI's own dispatcher runs, unchanged otherwise:
#   - a string id is from an earlier run only if that run's trials were handed back on resume (AD);
#   - after a resume, new ids are numbered after those, so they cannot be taken for earlier ones.
import logging
import os
import runpy

import nni
import nni.runtime.log
from nni.recoverable import Recoverable

# NNI pins its own logger at INFO on import: the experiment's logLevel reaches it only so
if os.environ.get('NNI_LOG_LEVEL') in ('debug', 'trace'):
    logging.getLogger('nni').setLevel(logging.DEBUG)

_recover = Recoverable.recover_parameter_id
_created_before = Recoverable.is_created_in_previous_exp


def _recover_string_ids(self, data):
    highest = _recover(self, data)
    earlier = self.__dict__.setdefault('_earlier_string_ids', set())
    for trial in data if isinstance(data, list) else [data]:
        trial = nni.load(trial) if isinstance(trial, str) else trial
        parameter_id = trial.get('parameter_id')
        if isinstance(parameter_id, str):
            earlier.add(parameter_id)
            self.recovered_trial_params[parameter_id] = trial.get('parameters')
            number = parameter_id.rsplit('_', 1)[-1]
            if number.isdigit():
                highest = max(highest, int(number))
    return highest


def _created_in_earlier_run(self, parameter_id):
    if isinstance(parameter_id, str):
        return parameter_id in self.__dict__.get('_earlier_string_ids', ())
    return _created_before(self, parameter_id)


Recoverable.recover_parameter_id = _recover_string_ids
Recoverable.is_created_in_previous_exp = _created_in_earlier_run
runpy.run_module('nni', run_name='__main__', alter_sys=True)
