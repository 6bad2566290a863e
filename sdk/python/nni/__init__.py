"""A small pure-Python stand-in for NNI's trial SDK (``import nni``).

It speaks NNI's trial protocol exactly (nni-core §3), so trials written for NNI run under
nni-osgi without installing NNI, and the same trials run under NNI unchanged:

* parameters: ``$NNI_SYS_DIR/parameter.cfg`` holds the tuner's packed parameter JSON;
* metrics on the local platform (``NNI_PLATFORM=local``, ``REUSE_MODE`` unset): appended to
  ``$NNI_SYS_DIR/.nni/metrics`` as ``ME`` + 6-digit byte length + JSON line;
* metrics elsewhere: one stdout line ``NNISDK_MEb'<json>'``.

Without ``NNI_PLATFORM`` (run by hand) ``get_next_parameter()`` returns ``{}`` and reports are
printed, as NNI's standalone mode does.
"""

import json
import os
import sys
import time

__all__ = ['get_next_parameter', 'report_intermediate_result', 'report_final_result',
           'get_trial_id', 'get_experiment_id', 'get_sequence_id', 'get_current_parameter']

__version__ = '3.0'

_MAX_METRIC_LENGTH = 1000000

_parameters = None
_parameter_id = None
_intermediate_sequence = 0
_parameter_index = 0
_POLL_SECONDS = 0.1


def _platform():
    return os.environ.get('NNI_PLATFORM', '')


def _file_protocol():
    return _platform() == 'local' and os.environ.get('REUSE_MODE', '').lower() != 'true'


def get_trial_id():
    """The trial's id (``NNI_TRIAL_JOB_ID``); ``'_trial_id'`` when run standalone."""
    return os.environ.get('NNI_TRIAL_JOB_ID', '_trial_id')


def get_experiment_id():
    """The experiment's id (``NNI_EXP_ID``); ``'_experiment_id'`` when run standalone."""
    return os.environ.get('NNI_EXP_ID', '_experiment_id')


def get_sequence_id():
    """The trial's sequence number (``NNI_TRIAL_SEQ_ID``); 0 when run standalone."""
    return int(os.environ.get('NNI_TRIAL_SEQ_ID', '0'))


def get_next_parameter():
    """The hyper-parameters the tuner chose for this trial (a dict).

    The first call reads ``parameter.cfg``. Each later call asks for the next set as NNI's SDK does
    (a ``REQUEST_PARAMETER`` report with the set's ``parameter_index``, through the same channel
    as metrics) and waits for ``parameter_<k>.cfg``; the tuner's dispatcher answers (multi-phase).
    Returns None when the tuner had no more parameters for it."""
    global _parameters, _parameter_id, _parameter_index
    if not _platform():
        _parameters = {}
        return _parameters
    name = 'parameter.cfg' if _parameter_index == 0 else 'parameter_%d.cfg' % _parameter_index
    path = os.path.join(os.environ['NNI_SYS_DIR'], name)
    if _parameter_index > 0 and not os.path.isfile(path):
        _send({'trial_job_id': get_trial_id(), 'type': 'REQUEST_PARAMETER', 'sequence': 0,
               'parameter_index': _parameter_index})
    # the platform writes each file atomically (the first before the trial starts); the SDK waits until it is there
    while not (os.path.isfile(path) and os.path.getsize(path) > 0):
        time.sleep(_POLL_SECONDS)
    with open(path, encoding='utf-8') as file:
        packed = json.load(file)
    if 'parameters' not in packed:
        raise ValueError('%s has no "parameters": %r' % (path, packed))
    _parameter_index += 1
    if packed['parameters'] is None:
        return None
    _parameter_id = packed.get('parameter_id')
    _parameters = packed['parameters']
    return _parameters


def get_current_parameter(tag=None):
    """The parameters returned by the last get_next_parameter(), or one of them by name."""
    if _parameters is None:
        return None
    return _parameters if tag is None else _parameters[tag]


def _dump(value):
    def plain(obj):
        for convert in (float, int, str):
            try:
                return convert(obj)
            except (TypeError, ValueError):
                continue
        raise TypeError('cannot report %r' % (obj,))
    return json.dumps(value, default=plain)


def _send(metric):
    line = json.dumps(metric)
    if len(line) >= _MAX_METRIC_LENGTH:
        raise ValueError('metric is %d characters long; NNI accepts fewer than %d' % (len(line), _MAX_METRIC_LENGTH))
    if not _platform():
        print('[nni standalone] %s' % line)
        return
    if _file_protocol():
        directory = os.path.join(os.environ['NNI_SYS_DIR'], '.nni')
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, 'metrics')
        data = (line + '\n').encode('utf8')
        with open(path, 'ab') as file:
            file.write(b'ME' + (b'%06d' % len(data)) + data)
            file.flush()
        os.utime(path)
    else:
        sys.stdout.write("NNISDK_MEb'%s'\n" % line)
        sys.stdout.flush()


def report_intermediate_result(metric):
    """Reports an intermediate result (a number, or a dict with a 'default' number)."""
    global _intermediate_sequence
    if _parameters is None and _platform():
        get_next_parameter()
    _send({'parameter_id': _parameter_id, 'trial_job_id': get_trial_id(), 'type': 'PERIODICAL',
           'sequence': _intermediate_sequence, 'value': _dump(metric)})
    _intermediate_sequence += 1


def report_final_result(metric):
    """Reports the trial's final result (a number, or a dict with a 'default' number)."""
    if _parameters is None and _platform():
        get_next_parameter()
    _send({'parameter_id': _parameter_id, 'trial_job_id': get_trial_id(), 'type': 'FINAL',
           'sequence': 0, 'value': _dump(metric)})
