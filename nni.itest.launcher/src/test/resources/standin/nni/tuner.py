"""NNI's Tuner base class, as far as a tuner class of a test needs it."""

from . import NoMoreTrialError


class Tuner:
    def generate_parameters(self, parameter_id, **kwargs):
        raise NotImplementedError

    def generate_multiple_parameters(self, parameter_id_list, **kwargs):
        result = []
        for parameter_id in parameter_id_list:
            try:
                result.append(self.generate_parameters(parameter_id, **kwargs))
            except NoMoreTrialError:
                break
        return result

    def receive_trial_result(self, parameter_id, parameters, value, **kwargs):
        pass

    def trial_end(self, parameter_id, success, **kwargs):
        pass

    def update_search_space(self, search_space):
        pass

    def import_data(self, data):
        pass

    def load_checkpoint(self):
        pass

    def save_checkpoint(self):
        pass

    def _on_exit(self):
        pass

    def _on_error(self):
        pass
