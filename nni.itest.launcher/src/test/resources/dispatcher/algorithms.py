"""Tuner and assessor classes the dispatcher tests load from an experiment's codeDirectory
(``className: algorithms.<Class>``). They are written against NNI's own base classes, so that they
run in the stand-in and in a real installation of NNI alike."""

import json
import os
import time

from nni import NoMoreTrialError
from nni.assessor import Assessor, AssessResult
from nni.tuner import Tuner


class Counting(Tuner):
    """The search space's x values in turn, as many trials as there are values, then no more for now."""

    def __init__(self, repeat=1):
        self.values = []
        self.repeat = repeat
        self.given = 0

    def update_search_space(self, search_space):
        self.values = search_space['x']['_value']

    def generate_parameters(self, parameter_id, **kwargs):
        if self.given >= len(self.values) * self.repeat:
            raise NoMoreTrialError('no more values')
        self.given += 1
        return {'x': self.values[(self.given - 1) % len(self.values)]}

    def receive_trial_result(self, parameter_id, parameters, value, **kwargs):
        pass


class MultiPhase(Tuner):
    """Gives each trial x = its parameter id, for the first and for every later parameter set."""

    def update_search_space(self, search_space):
        pass

    def generate_parameters(self, parameter_id, **kwargs):
        return {'x': parameter_id}

    def receive_trial_result(self, parameter_id, parameters, value, **kwargs):
        pass


class RecordsResults(MultiPhase):
    """Gives x = the parameter id; writes every result it receives to tuner-results.jsonl in the log folder."""

    def receive_trial_result(self, parameter_id, parameters, value, **kwargs):
        with open(os.path.join(os.environ['NNI_LOG_DIRECTORY'], 'tuner-results.jsonl'), 'a') as results:
            results.write(json.dumps({'parameter_id': parameter_id, 'value': value}) + '\n')


class FailsOnResults(Tuner):
    def update_search_space(self, search_space):
        pass

    def generate_parameters(self, parameter_id, **kwargs):
        return {'x': parameter_id}

    def receive_trial_result(self, parameter_id, parameters, value, **kwargs):
        raise ValueError('the tuner cannot take result %s' % value)


class Dies(Tuner):
    def update_search_space(self, search_space):
        pass

    def generate_parameters(self, parameter_id, **kwargs):
        print('the tuner is about to die', flush=True)
        os._exit(3)


class Hangs(Tuner):
    def update_search_space(self, search_space):
        pass

    def generate_parameters(self, parameter_id, **kwargs):
        print('the tuner hangs', flush=True)
        time.sleep(3600)


class StopsAtThree(Assessor):
    """Stops every trial at its third intermediate result."""

    def assess_trial(self, trial_job_id, trial_history):
        return AssessResult.Bad if len(trial_history) >= 3 else AssessResult.Good
