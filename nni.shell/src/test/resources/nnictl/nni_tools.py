"""What NNI 3.0's own tools do with an experiment, for tests: nnictl (its registry file
~/nni-experiments/.experiment and the REST calls of `experiment list`, `trial ls`, `top`, `update`,
`experiment export|import`, `stop`) and the Python client `nni.experiment.Experiment.connect(port)`.

Written for nni-osgi's tests from reading NNI's sources (nni/tools/nnictl/{config_utils,
common_utils,nnictl_utils,updater,command_utils}.py, nni/experiment/{experiment,rest,data}.py):
the same file format and lock protocol, the same requests, and the same parsing of the answers
(json.loads of `value` and double json.loads of `data`), so that a shape NNI cannot parse fails
here too. Standard library only (NNI's package cannot be installed where the tests run).

usage: nni_tools.py COMMAND ARGS...   (prints one JSON document; exit 1 with a message on failure)
  add DIR ID PORT PID          register an experiment as NNI's launcher does
  list DIR                     `nnictl experiment list --all`: dead pids become STOPPED first
  stop DIR ID                  `nnictl stop ID`: SIGTERM to the registered pid, wait for it to exit
  trial-ls DIR ID              `nnictl trial ls ID --head 10`
  top DIR                      one screen of `nnictl top`
  update DIR ID KEY VALUE      `nnictl update concurrency|trialnum|duration ID --value VALUE`
  export DIR ID TYPE FILE      `nnictl experiment export ID --type json|csv --filename FILE --intermediate`
  import DIR ID FILE           `nnictl experiment import ID --filename FILE`
  client PORT [PREFIX]         `Experiment.connect(PORT)` and the calls of its API
  client-stop PORT [PREFIX]    `Experiment.stop()` on a connected experiment: DELETE, then wait for the pid
"""

import csv
import glob
import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request

STALE = 2  # seconds: NNI ignores lock files older than this


# ---------------------------------------------------------------- the registry, as config_utils.Experiments

def lock(directory):
    registry = os.path.join(directory, '.experiment')
    mine = '%s.lock.%d' % (registry, os.getpid())
    while True:
        fresh = [f for f in glob.glob(registry + '.lock.*')
                 if os.path.exists(f) and time.time() - os.stat(f).st_mtime < STALE]
        if not fresh:
            try:
                os.close(os.open(mine, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_TRUNC))
                return mine
            except OSError:
                pass
        time.sleep(0.05)


def unlock(mine):
    try:
        os.remove(mine)
    except OSError:
        pass


def read(directory):
    registry = os.path.join(directory, '.experiment')
    if not os.path.exists(registry):
        return {}
    try:
        with open(registry, 'r', encoding='utf_8') as file:
            return json.load(file)
    except ValueError:
        return {}


def write(directory, experiments):
    with open(os.path.join(directory, '.experiment'), 'w', encoding='utf_8') as file:
        json.dump(experiments, file, indent=4)


def locked(directory, change):
    mine = lock(directory)
    try:
        experiments = read(directory)
        result = change(experiments)
        write(directory, experiments)
        return result
    finally:
        unlock(mine)


def alive(pid):
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is not running (psutil's is_running says so too)
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().split(')')[-1].split()[0] != 'Z'
    except OSError:
        return False


def update_stopped(directory):
    """nnictl_utils.update_experiment: an experiment whose pid is gone is STOPPED."""
    def change(experiments):
        for entry in experiments.values():
            if isinstance(entry, dict) and entry.get('status') != 'STOPPED' and not alive(entry.get('pid')):
                entry['status'] = 'STOPPED'
    locked(directory, change)


def entry_of(directory, experiment_id):
    entry = read(directory).get(experiment_id)
    if entry is None:
        fail('Id not correct: %s is not in %s' % (experiment_id, directory))
    return entry


# ---------------------------------------------------------------- REST, as rest.py and rest_utils.py

def request(method, port, api, data=None, prefix=None):
    parts = ['http://localhost:%d' % port, prefix, 'api/v1/nni', api]
    url = '/'.join(part.strip('/') for part in parts if part)
    body = None if data is None else json.dumps(data).encode()
    req = urllib.request.Request(url, data=body, method=method.upper(),
                                 headers={'Content-Type': 'application/json', 'Accept': 'application/json'})
    try:
        with urllib.request.urlopen(req, timeout=20) as response:
            content = response.read()
    except urllib.error.HTTPError as error:
        fail('%s %s failed: %d %s' % (method.upper(), url, error.code, error.read().decode()))
    if method.lower() in ('get', 'post') and content:
        return json.loads(content)
    return None


def fail(message):
    print(json.dumps({'error': message}))
    sys.exit(1)


# ---------------------------------------------------------------- nnictl commands

def experiment_list(directory):
    update_stopped(directory)
    return [{'id': key, 'name': value.get('experimentName', 'N/A'), 'status': value['status'],
             'port': value.get('port', 'N/A'), 'platform': value.get('platform'),
             'startTime': value['startTime'], 'endTime': value['endTime']}
            for key, value in read(directory).items()]


def stop(directory, experiment_id):
    update_stopped(directory)
    pid = entry_of(directory, experiment_id).get('pid')
    started = time.time()
    if pid:
        os.kill(pid, signal.SIGTERM)
        while alive(pid) and time.time() - started < 60:
            time.sleep(0.1)
    return {'pid': pid, 'exited': not alive(pid), 'status': read(directory)[experiment_id]['status']}


def final_value(trial):
    return json.loads(json.loads(trial['finalMetricData'][0]['data']))


def trial_ls(directory, experiment_id):
    entry = entry_of(directory, experiment_id)
    if not alive(entry.get('pid')):
        fail('Experiment is not running...')
    request('get', entry['port'], '/check-status')
    content = request('get', entry['port'], '/trial-jobs')
    finished = [t for t in content if 'finalMetricData' in t]
    for trial in finished:
        value = final_value(trial)
        if not isinstance(value, (float, int, dict)):
            fail('Unexpected data format: %r' % value)
    return sorted(finished, key=lambda t: final_value(t) if not isinstance(final_value(t), dict)
                  else final_value(t)['default'], reverse=True)[:10]


def top(directory):
    update_stopped(directory)
    screen = []
    for key, value in read(directory).items():
        if value['status'] == 'STOPPED':
            continue
        trials = request('get', value['port'], '/trial-jobs')
        screen.append({'id': key, 'status': value['status'], 'port': value['port'],
                       'trials': [[t.get('trialJobId'), t.get('startTime'), t.get('endTime'), t.get('status')] for t in trials]})
    return screen


UPDATE_TYPES = {'trialConcurrency': 'TRIAL_CONCURRENCY', 'maxExperimentDuration': 'MAX_EXEC_DURATION',
                'searchSpace': 'SEARCH_SPACE', 'maxTrialNumber': 'MAX_TRIAL_NUM'}


def update(directory, experiment_id, what, value):
    key = {'concurrency': 'trialConcurrency', 'trialnum': 'maxTrialNumber', 'duration': 'maxExperimentDuration'}[what]
    if what == 'duration':  # nnictl sends seconds
        units = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400}
        value = int(float(value[:-1]) * units[value[-1]]) if value[-1] in units else int(value)
    else:
        value = int(value)
    port = entry_of(directory, experiment_id)['port']
    request('get', port, '/check-status')
    profile = request('get', port, '/experiment')
    profile['params'][key] = value
    request('put', port, '/experiment?update_type=' + UPDATE_TYPES[key], profile)
    return request('get', port, '/experiment')


def export(directory, experiment_id, kind, path):
    entry = entry_of(directory, experiment_id)
    if not alive(entry.get('pid')):
        fail('Experiment is not running...')
    content = request('get', entry['port'], '/export-data')
    metrics = request('get', entry['port'], '/metric-data')
    intermediate = {}
    for metric in sorted(metrics, key=lambda m: m['timestamp']):
        intermediate.setdefault(metric['trialJobId'], []).append(json.loads(metric['data']))
    for record in content:
        record['intermediate'] = intermediate[record['trialJobId']]
    if kind == 'json':
        with open(path, 'w') as file:
            file.write(json.dumps(content))
    else:
        records = []
        for record in content:
            row = {'intermediate': '[' + ','.join(record['intermediate']) + ']'}
            value = json.loads(record['value'])
            if not isinstance(value, (float, int)):
                row.update({**record['parameter'], **value, 'trialJobId': record['trialJobId']})
            else:
                row.update({**record['parameter'], 'reward': value, 'trialJobId': record['trialJobId']})
            records.append(row)
        with open(path, 'w', newline='') as file:
            writer = csv.DictWriter(file, sorted(set.union(*[set(r.keys()) for r in records])))
            writer.writeheader()
            writer.writerows(records)
    return content


def import_data(directory, experiment_id, path):
    """updater.import_data: the file's JSON list posted as it is."""
    entry = entry_of(directory, experiment_id)
    if not alive(entry.get('pid')):
        fail('Experiment is not running...')
    with open(path) as file:
        content = json.load(file)
    request('get', entry['port'], '/check-status')
    request('post', entry['port'], '/experiment/import-data', content)
    return request('get', entry['port'], '/experiment/imported-data')


# ---------------------------------------------------------------- nni.experiment.Experiment

def connect(port, prefix=None):
    """Experiment.connect: the profile's id, the status, then the pid from /experiments-info."""
    experiment_id = request('get', port, '/experiment', prefix=prefix).get('id')
    status = request('get', port, '/check-status', prefix=prefix)['status']
    metadata = [m for m in request('get', port, '/experiments-info', prefix=prefix) if m['id'] == experiment_id]
    pid = metadata[0].get('pid') if metadata else None
    return experiment_id, status, pid


def client(port, prefix=None):
    experiment_id, status, pid = connect(port, prefix)
    trials = request('get', port, '/trial-jobs', prefix=prefix)
    for trial in trials:  # data.TrialJob
        [json.loads(e) for e in trial.get('hyperParameters', [])]
        [json.loads(json.loads(m['data'])) for m in trial.get('finalMetricData', [])]
    metrics = request('get', port, '/metric-data', prefix=prefix)
    parsed_metrics = [json.loads(json.loads(m['data'])) for m in metrics]  # data.TrialMetricData
    exported = [json.loads(r['value']) for r in request('get', port, '/export-data', prefix=prefix)]  # data.TrialResult
    statistics = request('get', port, '/job-statistics', prefix=prefix)
    for key, value in (('trialConcurrency', 3), ('maxExperimentDuration', '1h'), ('maxTrialNumber', 50)):
        profile = request('get', port, '/experiment', prefix=prefix)  # _update_experiment_profile
        profile['params'][key] = value
        request('put', port, '/experiment?update_type=' + UPDATE_TYPES[key], profile, prefix=prefix)
    params = request('get', port, '/experiment', prefix=prefix)['params']
    return {'id': experiment_id, 'status': status, 'pid': pid, 'trials': len(trials), 'metrics': parsed_metrics,
            'exported': exported, 'statistics': statistics,
            'params': {k: params.get(k) for k in ('trialConcurrency', 'maxExperimentDuration', 'maxTrialNumber')}}


def client_stop(port, prefix=None):
    experiment_id, status, pid = connect(port, prefix)
    request('delete', port, '/experiment', prefix=prefix)
    started = time.time()
    while alive(pid) and time.time() - started < 60:  # self._proc.wait()
        time.sleep(0.1)
    return {'id': experiment_id, 'pid': pid, 'exited': not alive(pid)}


def main(argv):
    command, args = argv[1], argv[2:]
    if command == 'add':
        directory, experiment_id, port, pid = args
        def add(experiments):
            experiments[experiment_id] = {'id': experiment_id, 'port': int(port), 'startTime': int(time.time() * 1000),
                                          'endTime': 'N/A', 'status': 'INITIALIZED', 'platform': 'local',
                                          'experimentName': None, 'tag': [], 'pid': int(pid), 'webuiUrl': [],
                                          'logDir': directory, 'prefixUrl': None}
        locked(directory, add)
        result = read(directory)
    elif command == 'list':
        result = experiment_list(args[0])
    elif command == 'stop':
        result = stop(*args)
    elif command == 'trial-ls':
        result = trial_ls(*args)
    elif command == 'top':
        result = top(*args)
    elif command == 'update':
        result = update(*args)
    elif command == 'export':
        result = export(*args)
    elif command == 'import':
        result = import_data(*args)
    elif command == 'client':
        result = client(int(args[0]), args[1] if len(args) > 1 else None)
    elif command == 'client-stop':
        result = client_stop(int(args[0]), args[1] if len(args) > 1 else None)
    else:
        fail('unknown command ' + command)
    print(json.dumps(result))


if __name__ == '__main__':
    main(sys.argv)
