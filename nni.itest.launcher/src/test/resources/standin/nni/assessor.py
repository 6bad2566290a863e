"""NNI's Assessor base class and AssessResult, as far as an assessor class of a test needs them."""

from enum import Enum


class AssessResult(Enum):
    Good = True
    Bad = False


class Assessor:
    def assess_trial(self, trial_job_id, trial_history):
        raise NotImplementedError

    def trial_end(self, trial_job_id, success):
        pass

    def load_checkpoint(self):
        pass

    def _on_exit(self):
        pass

    def _on_error(self):
        pass
