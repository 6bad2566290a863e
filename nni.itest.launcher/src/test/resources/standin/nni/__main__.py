"""A stand-in for NNI's dispatcher (``python3 -m nni --exp_params <base64 JSON>``), for nni-osgi's
tests: it follows NNI's MsgDispatcher (nni-core §2.5, §2.6) over the tuner command channel
(``NNI_TUNER_COMMAND_CHANNEL``), with v3.0's JSON framing, or v2.8's when the version it claims is
older, and runs the tuner and assessor an experiment names: a class from ``codeDirectory``
(``className``), or its own ``Random``. Every command it receives is appended to
``$NNI_LOG_DIRECTORY/standin-commands.jsonl`` for the tests to read.
"""

import argparse
import base64
import importlib
import json
import os
import random
import sys
import traceback

from . import NoMoreTrialError, __version__
from .assessor import AssessResult
from .tuner import Tuner
from ._ws import Closed, WebSocket


def _json_framing():
    major, minor = (int(part) for part in __version__.split('.')[:2])
    return major >= 3


class Channel:
    def __init__(self, url):
        self._ws = WebSocket(url)
        self._json = _json_framing()

    def send(self, kind, content=''):
        self._ws.send(json.dumps({'type': kind, 'content': content}) if self._json else kind + content)

    def receive(self):
        while True:
            text = self._ws.receive()
            if not self._json:
                return text[:2], text[2:]
            command = json.loads(text)
            if command['type'] == '_nop_':
                continue
            if command['type'] == '_bye_':
                return 'TE', ''
            return command['type'], command.get('content', '')

    def bye(self):
        if self._json:
            try:
                self._ws.send(json.dumps({'type': '_bye_'}))
            except OSError:
                pass
        self._ws.close()


class RandomTuner(Tuner):
    """NNI's Random, simply: choice, randint, uniform and their q/log kin drawn uniformly."""

    def __init__(self, seed=None, optimize_mode=None):
        self.rng = random.Random(seed)
        self.space = {}

    def update_search_space(self, search_space):
        self.space = search_space

    def generate_parameters(self, parameter_id, **kwargs):
        params = {}
        for name, spec in self.space.items():
            values = spec.get('_value') if isinstance(spec, dict) else None
            kind = spec.get('_type') if isinstance(spec, dict) else None
            if not isinstance(values, list) or not values:
                params[name] = None  # a format of the algorithm's own (NetworkMorphism, opevo): nothing to draw
            elif kind == 'choice' or not all(isinstance(v, (int, float)) for v in values[:2]) or len(values) < 2:
                params[name] = self.rng.choice(values)
            elif kind == 'randint':
                params[name] = self.rng.randrange(values[0], values[1])
            else:
                params[name] = self.rng.uniform(values[0], values[1])
        return params


def _create(section):
    if os.environ.get('STANDIN_ANY_ALGORITHM') == '1':
        # for tests that only check that an experiment starts its algorithm: Random stands in for any
        return RandomTuner()
    if section.get('name'):
        if section['name'].lower() != 'random':
            raise AssertionError('the stand-in runs only Random and custom classes, not %s' % section['name'])
        return RandomTuner(**(section.get('classArgs') or {}))
    sys.path.insert(0, section['codeDirectory'])
    module, name = section['className'].rsplit('.', 1)
    return getattr(importlib.import_module(module), name)(**(section.get('classArgs') or {}))


def _pack(parameter_id, params, trial_job_id=None, parameter_index=0):
    packed = {'parameter_id': parameter_id, 'parameter_source': 'algorithm', 'parameters': params,
              'parameter_index': parameter_index}
    if trial_job_id is not None:
        packed['trial_job_id'] = trial_job_id
    return json.dumps(packed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--exp_params', required=True)
    params = json.loads(base64.b64decode(parser.parse_args().exp_params).decode('utf-8'))
    record = open(os.path.join(os.environ['NNI_LOG_DIRECTORY'], 'standin-commands.jsonl'), 'a')
    record.write(json.dumps({'type': '_start_', 'content': {
        'mode': os.environ.get('NNI_MODE'), 'sdk_process': os.environ.get('SDK_PROCESS'),
        'checkpoint': os.environ.get('NNI_CHECKPOINT_DIRECTORY'), 'cwd': os.getcwd(),
        'intermediate': os.environ.get('NNI_INCLUDE_INTERMEDIATE_RESULTS'), 'version': __version__,
        'exp_params': params}}) + '\n')
    record.flush()
    tuner = _create(params['tuner'])
    assessor = _create(params['assessor']) if params.get('assessor') else None
    channel = Channel(os.environ['NNI_TUNER_COMMAND_CHANNEL'])
    print('stand-in dispatcher connected (nni %s)' % __version__, flush=True)
    next_id = 0
    given = {}
    previous = -1
    history = {}
    ended = set()
    try:
        while True:
            kind, content = channel.receive()
            if kind == 'PI':
                continue  # NNI's ping: nothing to do (not recorded, so that the tests see the protocol's commands)
            record.write(json.dumps({'type': kind, 'content': content}) + '\n')
            record.flush()
            if kind == 'TE':
                break
            data = json.loads(content) if content else None
            if kind == 'IN':
                tuner.update_search_space(data)
                channel.send('ID')
            elif kind == 'GE':
                ids = list(range(next_id, next_id + data))
                next_id += data
                generated = tuner.generate_multiple_parameters(ids)
                for parameter_id, generated_params in zip(ids, generated):
                    given[parameter_id] = generated_params
                    channel.send('TR', _pack(parameter_id, generated_params))
                if len(generated) < len(ids):
                    channel.send('NO', _pack(ids[0], ''))
            elif kind == 'SS':
                tuner.update_search_space(data)
            elif kind == 'FD':
                for entry in data:
                    if isinstance(entry['value'], str):
                        entry['value'] = json.loads(entry['value'])
                tuner.import_data(data)
            elif kind == 'AD':
                # as NNI's dispatcher: ids continue after the resumed trials' (after 0 when there are none)
                ids = [json.loads(p)['parameter_id'] if isinstance(p, str) else p['parameter_id'] for p in data]
                previous = max([i for i in ids if isinstance(i, int)] + [0])
                next_id = previous + 1
            elif kind == 'ME':
                if data['type'] == 'REQUEST_PARAMETER':
                    parameter_id = next_id
                    next_id += 1
                    try:
                        more = tuner.generate_parameters(parameter_id, trial_job_id=data['trial_job_id'])
                    except NoMoreTrialError:
                        more = None
                    channel.send('SP', _pack(parameter_id, more, data['trial_job_id'], data['parameter_index']))
                    continue
                value = json.loads(data['value']) if isinstance(data['value'], str) else data['value']
                if data['type'] == 'FINAL' and data['parameter_id'] in given:
                    tuner.receive_trial_result(data['parameter_id'], given[data['parameter_id']], value)
                elif data['type'] == 'PERIODICAL' and assessor is not None and data['trial_job_id'] not in ended:
                    trial = history.setdefault(data['trial_job_id'], {})
                    trial[data['sequence']] = value
                    ordered = [trial[i] for i in range(len(trial)) if i in trial]
                    verdict = assessor.assess_trial(data['trial_job_id'], ordered)
                    if verdict is False or verdict is AssessResult.Bad:
                        channel.send('KI', json.dumps(data['trial_job_id']))
                        # NNI's dispatcher gives the tuner the stopped trial's last result as its final one
                        if os.environ.get('NNI_INCLUDE_INTERMEDIATE_RESULTS') == 'true' and data['parameter_id'] in given:
                            tuner.receive_trial_result(data['parameter_id'], given[data['parameter_id']], value)
            elif kind == 'EN':
                parameter_id = json.loads(data['hyper_params'])['parameter_id']
                ended.add(data['trial_job_id'])
                if assessor is not None:
                    assessor.trial_end(data['trial_job_id'], data['event'] == 'SUCCEEDED')
                if isinstance(parameter_id, int) and parameter_id > previous:
                    tuner.trial_end(parameter_id, data['event'] == 'SUCCEEDED')
            else:
                raise ValueError('unknown command %s' % kind)
    except Closed as closed:
        print('stand-in dispatcher: %s' % closed, flush=True)
        sys.exit(1)
    except Exception:
        error = traceback.format_exc()
        print(error, file=sys.stderr, flush=True)
        channel.send('ER', error)
        channel.bye()
        sys.exit(1)
    channel.bye()
    print('stand-in dispatcher: terminated', flush=True)


if __name__ == '__main__':
    main()
