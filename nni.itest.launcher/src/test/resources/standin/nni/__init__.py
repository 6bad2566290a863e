"""A stand-in for NNI's ``nni`` package, for nni-osgi's tests: only what its dispatcher
(``python3 -m nni``) and a tuner or assessor class need. Standard library only.

``STANDIN_NNI_VERSION`` sets the version it claims (3.0 by default; 2.8-2.10 speak the older
framing), as a real installation of that version would.
"""

import os

__version__ = os.environ.get('STANDIN_NNI_VERSION', '3.0')


class NoMoreTrialError(Exception):
    """A tuner has no more parameters (NNI's nni.NoMoreTrialError)."""
